#!/bin/sh
# Signs up a customer, run by the operator on the server's machine: a pass funded with
# CREDITS credits and a key on it. Prints the key (shown once: hand it over now) and
# then the pass as the ledger holds it.
#
#   DECIDE_DB=/var/lib/decide/decide.db examples/operator.sh 100
#
# The ledger is the one `decide serve` uses: --db / DECIDE_DB, else DECIDE_DATABASE_URL,
# else ./decide.db. Exit codes are the operator commands' (decide --help): 64 bad
# arguments, 65 not a ledger, 66 no ledger there (the commands never make one unasked) or
# no such pass, 69 locked or unreachable, 74 cannot open.
set -eu

credits=${1:?usage: operator.sh CREDITS}

# One field of the JSON object on standard input (node is there: decide runs on it). A
# failed step prints its failure as JSON without that field (its sentence is already on
# stderr): then this fails, and `set -e` stops the script there rather than going on
# with "undefined".
field() {
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { const v = s.trim() ? JSON.parse(s)[process.argv[1]] : undefined; if (v === undefined) process.exit(1); console.log(v); })' "$1"
}

pass=$(decide pass create --json | field passId)
decide pass fund --pass "$pass" --credits "$credits" --json > /dev/null
key=$(decide key create --pass "$pass" --json | field key)

echo "key: $key"
decide pass show --pass "$pass"
