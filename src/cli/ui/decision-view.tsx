import { Box } from 'ink';
import type { DecisionResponse } from '../../contract/index.js';
import { Bars } from './bars.js';
import { Fields } from './fields.js';
import { Prose } from './prose.js';
import { StressView } from './stress-view.js';
import {
  footerWords,
  resultLines,
  rowsOf,
  signalTone,
  signalWords,
  sufficiencyLevel,
  sufficiencyWords,
  VERDICTS,
  verdictOf,
} from './words.js';

const TOP_MARK = { choice: 'selected', score: 'likeliest', noul: 'leans' } as const;

/**
 * A decision, laid out for a terminal `columns` wide: the question, one bar per
 * answer, the result, the signal and the context check in words, and for a stress test
 * the overall verdict and the checks.
 */
export function DecisionView({ response, columns }: { response: DecisionResponse; columns: number }) {
  const sufficiency = response.contextSufficiency;
  const verdict = verdictOf(response);
  return (
    <Box flexDirection="column">
      <Prose bold>{response.question}</Prose>
      <Box marginTop={1} flexDirection="column">
        <Bars rows={rowsOf(response.result)} topMark={TOP_MARK[response.mode]} columns={columns} />
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Fields
          fields={[
            ...resultLines(response.result).map(([label, value]) => ({ label, value })),
            {
              label: 'Signal',
              value: (
                <Prose tone={signalTone(response.signal)} bold>
                  {signalWords(response)}
                </Prose>
              ),
            },
            { label: 'Context', value: <Prose tone={sufficiencyLevel(sufficiency).tone}>{sufficiencyWords(sufficiency)}</Prose> },
            ...(verdict
              ? [
                  {
                    label: 'Verdict',
                    value: (
                      <Prose tone={VERDICTS[verdict.verdict].tone} bold>
                        {verdict.words}
                      </Prose>
                    ),
                  },
                ]
              : []),
          ]}
        />
      </Box>
      {response.stress ? <StressView stress={response.stress} columns={columns} /> : null}
      <Box marginTop={1}>
        <Prose dim>{footerWords(response)}</Prose>
      </Box>
    </Box>
  );
}
