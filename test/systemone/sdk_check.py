"""The format's official Python SDK (typesafe-sdk) against decide serve, as its users call it.

Run by python-sdk.test.ts with the environment of `npm run tools:python`:
    python sdk_check.py BASE_URL FUNDED_KEY UNFUNDED_KEY
and prints one JSON object of what the SDK saw, which the test checks.
"""
import json
import sys

from typesafe_sdk import (
    Choice,
    Noul,
    RetryPolicy,
    Score,
    TypeSafeAuthenticationError,
    TypeSafeClient,
    TypeSafeInternalServerError,
    TypeSafeRateLimitError,
    TypeSafeUnprocessableEntityError,
)

base_url, funded, unfunded = sys.argv[1:4]
# No retries: the SDK retries 429 and 5xx by default, and the test wants each answer once.
NO_RETRY = RetryPolicy(max_retries=0)
seen = {}


def client(key):
    return TypeSafeClient(api_key=key, base_url=base_url, retry=NO_RETRY, timeout=60)


def failure(call):
    """What the SDK raised: its class, status, message and request id."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 -- the class is what is checked
        return {
            "class": type(e).__name__,
            "status": getattr(e, "status", None),
            "message": str(e),
            "request_id": getattr(e, "request_id", None),
            "retry_after_ms": getattr(e, "retry_after_ms", None),
        }
    return None


with client(funded) as sdk:
    r = sdk.system_one(
        state={"ticket": "I was charged twice this month. Please refund one payment today.", "customer": {"plan": "pro", "tickets": [1, 2]}},
        questions={
            "topic": Choice(instructions="What is this ticket about?", criteria={"billing": {"owns": ["refunds"]}, "10": None, "2": ["bugs", "outages"]}),
            "refund?": Noul(instructions="Does the customer ask for money back?", criteria={"true": "a refund"}),
            "anger level": Score(instructions="How upset is the customer?", criteria=[f"level {i}" for i in range(10)]),
        },
        model="jev-latest",
    )
    topic = r.choices["topic"]
    anger = r.scores["anger level"]
    seen["answer"] = {
        "model": r.model,
        "ids": list(r.answers),
        "topic": {"choice": topic.choice, "options": list(topic.probabilities), "sum": sum(topic.probabilities.values()), "confidence": topic.confidence},
        "refund": r.nouls["refund?"].noul,
        "anger": {"legend": {str(k): v for k, v in anger.legend.items()}, "levels": sorted(anger.probabilities), "score": anger.score},
        "usage": [r.usage.input_tokens, r.usage.output_tokens],
        "request_id": r.request_id,
    }
    many = sdk.system_one(state="Route to queue 137.", questions={"queue": Choice(criteria={f"queue {i}": None for i in range(1, 256)})})
    seen["options_255"] = len(many.choices["queue"].probabilities)
    seen["models"] = [m.name for m in sdk.models.list().models]
    seen["invalid"] = failure(lambda: sdk.system_one(state="x", questions={"q": Score(criteria=[f"level {i}" for i in range(11)])}))
    seen["unreadable"] = failure(lambda: sdk.system_one(state="x", questions={"a": Noul(instructions="Fine?"), "b": Noul(instructions="An unreadable question?")}))

seen["bad_key"] = failure(lambda: client("dcd_api_not-a-real-key-at-all").system_one(state="x", questions={"q": Noul(instructions="Fine?")}))
with client(unfunded) as sdk:
    seen["over_allowance"] = failure(lambda: sdk.system_one(state="x", questions={f"q{i}": Noul(instructions=f"Question {i}?") for i in range(21)}))

print(json.dumps(seen))
