#!/bin/sh
# Gates a pipeline on a decision: the step fails unless the answer is a clear yes.
#
#   examples/ci-gate.sh "Should this build be deployed to production?" release-notes.md
#
# The facts are a file (the release notes, a test summary); the service and key come
# from DECIDE_URL and DECIDE_API_KEY (a CI secret; never a flag, which `ps` shows).
# In GitHub Actions, for instance:
#
#   - run: npm install -g ./decide-service-0.1.0.tgz   # this package (`npm pack` makes the file), wherever you keep it
#   - run: examples/ci-gate.sh "Should this build be deployed to production?" release-notes.md
#     env:
#       DECIDE_URL: https://decide.example.com
#       DECIDE_API_KEY: ${{ secrets.DECIDE_API_KEY }}
#
# Exit codes are decide ask's: 0 a clear yes, 1 anything else (no, unclear,
# needs-context), 2 bad input, 3 the key, 4 payment or limit, 5 the service.
set -eu

question=${1:?usage: ci-gate.sh QUESTION FACTS_FILE}
facts=${2:?usage: ci-gate.sh QUESTION FACTS_FILE}

# --json prints the whole answer for the job's log; --fail-on unclear sets the exit code.
exec decide ask "$question" --context "@$facts" --fail-on unclear --json
