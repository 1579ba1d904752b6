import { Box, Text } from 'ink';
import type { DecisionResponse } from '../../contract/index.js';
import { Bars } from './bars.js';
import { Paint } from './paint.js';
import { StressView } from './stress-view.js';
import { footerWords, percent, rowsOf, signalTone, signalWords, sufficiencyWords, wholePercent } from './words.js';

/** The line under the bars that states the result itself. */
function resultLine(response: DecisionResponse): string {
  const { result } = response;
  if ('yesProbability' in result) return `Probability of yes: ${percent(result.yesProbability)}`;
  if ('selected' in result) return `Selected: ${result.selected} (confidence ${wholePercent(result.confidence)})`;
  const levels = Object.keys(result.probabilities);
  return `Score: ${result.score.toFixed(2)} on 0 (${levels[0]}) to 2 (${levels[2]}), confidence ${wholePercent(result.confidence)}`;
}

const TOP_MARK = { choice: 'selected', score: 'likeliest', noul: 'leans' } as const;

/** A decision: the question, one bar per answer, the signal and the context check in words. */
export function DecisionView({ response }: { response: DecisionResponse }) {
  const tone = signalTone(response.signal);
  return (
    <Box flexDirection="column">
      <Paint bold>{response.question}</Paint>
      <Box marginTop={1} flexDirection="column">
        <Bars rows={rowsOf(response.result)} topMark={TOP_MARK[response.mode]} />
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Text>{resultLine(response)}</Text>
        <Box>
          <Text>{'Signal:  '}</Text>
          <Paint tone={tone} bold>
            {signalWords(response)}
          </Paint>
        </Box>
        <Box>
          <Text>{'Context: '}</Text>
          <Paint tone={response.contextSufficiency >= 0.8 ? 'good' : response.contextSufficiency >= 0.5 ? 'doubt' : 'bad'}>
            {sufficiencyWords(response.contextSufficiency)}
          </Paint>
        </Box>
      </Box>
      {response.stress ? <StressView stress={response.stress} /> : null}
      <Box marginTop={1}>
        <Paint dim>{footerWords(response)}</Paint>
      </Box>
    </Box>
  );
}
