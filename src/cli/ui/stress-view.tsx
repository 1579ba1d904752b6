import { Box, Text } from 'ink';
import type { Stress } from '../../contract/index.js';
import { Paint } from './paint.js';
import { checkName, quote, topAnswer, wholePercent } from './words.js';

const NAME = 60;
const AGREES = 8;
const SHIFT = 7;

function Cells({ name, agrees, shift, answer, pivot }: { name: string; agrees: string; shift: string; answer: string; pivot?: boolean }) {
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Paint color="yellow" bold>{pivot ? '»' : ' '}</Paint>
      </Box>
      <Box width={NAME} flexShrink={0}>
        <Paint bold={pivot} color={pivot ? 'yellow' : undefined}>{name}</Paint>
      </Box>
      <Box width={AGREES} flexShrink={0}>
        <Text>{agrees}</Text>
      </Box>
      <Box width={SHIFT} flexShrink={0} justifyContent="flex-end">
        <Text>{shift}</Text>
      </Box>
      <Text>{`  ${answer}`}</Text>
    </Box>
  );
}

/** The checks of a stress test as a table, and the pivot fact highlighted below it. */
export function StressView({ stress }: { stress: Stress }) {
  const agreeing = stress.checks.filter((check) => check.agrees).length;
  const pivot = stress.pivot;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        {`Stress test: ${agreeing} of ${stress.checks.length} checks agree with the answer (agreement ${wholePercent(stress.agreement)})`}
      </Text>
      <Cells name="Check" agrees="Agrees" shift="Shift" answer="Answer" />
      {stress.checks.map((check, i) => (
        <Cells
          key={i}
          name={checkName(check, NAME - 2)}
          agrees={check.agrees ? 'yes' : 'NO'}
          shift={wholePercent(check.shift)}
          answer={topAnswer(check.result)}
          pivot={pivot !== null && check.kind === 'without-fact' && check.factIndex === pivot.factIndex}
        />
      ))}
      {pivot ? (
        <Box flexDirection="column" marginTop={1}>
          <Paint color="yellow" bold>
            {`» Pivot fact ${pivot.factIndex + 1}: ${quote(pivot.fact, 200)}`}
          </Paint>
          <Text>
            {`  Without it the answer shifts by ${wholePercent(pivot.shift)}` +
              (pivot.flips ? ' and flips: the decision rests on this fact.' : ' but does not flip.')}
          </Text>
        </Box>
      ) : (
        <Text>
          {stress.checks.some((check) => check.kind === 'without-fact')
            ? 'No single fact decides it: leaving one out never flips the answer or moves it 10% or more.'
            : 'No single fact decides it: the context holds a single fact.'}
        </Text>
      )}
    </Box>
  );
}
