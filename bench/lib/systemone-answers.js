// The answers of the bench's System One engines (bench/engine-server.js and the chaos
// run's faulty one): a valid answer for each question, the same every time.

/** Deterministic weights per label (a small string hash), so a reversed question agrees. */
function weight(label) {
  let h = 2166136261;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
  return 1 + ((h >>> 0) % 97);
}

function distribution(labels) {
  const w = labels.map(weight);
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

export function answer(question) {
  switch (question.type) {
    case 'noul':
      return { type: 'noul', noul: 0.72 };
    case 'choice': {
      const labels = Object.keys(question.criteria ?? {});
      const p = distribution(labels);
      let top = 0;
      for (let i = 1; i < p.length; i++) if (p[i] > p[top]) top = i;
      return {
        type: 'choice',
        choice: labels[top],
        confidence: p[top],
        probabilities: Object.fromEntries(labels.map((label, i) => [label, p[i]])),
      };
    }
    case 'score': {
      const levels = Array.isArray(question.criteria) ? question.criteria : Object.values(question.criteria ?? {});
      const p = distribution(levels.map(String));
      const score = p.reduce((s, x, i) => s + i * x, 0);
      return {
        type: 'score',
        score,
        confidence: Math.max(...p),
        legend: Object.fromEntries(levels.map((l, i) => [String(i), String(l)])),
        probabilities: Object.fromEntries(p.map((x, i) => [String(i), x])),
      };
    }
    default:
      return null;
  }
}
