#!/bin/bash
# The release's verifier driver form: structural checks under pytest, then the reward script.
set -u
pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ "$?" -eq 0 ]; then
  python /tests/score_result.py || echo 0 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
