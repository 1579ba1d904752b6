"""Calls every route of decide once through the Python client openapi-python-client
generated from its OpenAPI document, as a user of that client writes it, and prints
what each call answered: its status and the class the client parsed the body into.

    python generated_client_calls.py OUTPUT_DIR PACKAGE BASE_URL ADMIN_TOKEN

OUTPUT_DIR holds the generated PACKAGE; the server at BASE_URL runs with ADMIN_TOKEN as
its operator token and verification `none` (so a browser's pass needs no widget).
"""

import importlib
import json
import pkgutil
import sys

out_dir, package, base, admin_token = sys.argv[1:5]
sys.path.insert(0, out_dir)
api = importlib.import_module(f"{package}.api.default")
client = importlib.import_module(f"{package}.client")
m = importlib.import_module(f"{package}.models")


def op(name):
    return importlib.import_module(f"{package}.api.default.{name}")


calls = {}


def record(name, response):
    calls[name] = {"status": int(response.status_code), "parsed": type(response.parsed).__name__}
    return response.parsed


CONTEXT = "The invoice was paid twice and the customer asked for a refund."

admin = client.AuthenticatedClient(base_url=base, token=admin_token, raise_on_unexpected_status=True)
anyone = client.Client(base_url=base, raise_on_unexpected_status=True)

record("health", op("health").sync_detailed(client=anyone))
record("readiness", op("readiness").sync_detailed(client=anyone))
record("get_metrics", op("get_metrics").sync_detailed(client=anyone))

created_pass = record("admin_create_pass", op("admin_create_pass").sync_detailed(client=admin))
record("admin_list_passes", op("admin_list_passes").sync_detailed(client=admin))
record("admin_show_pass", op("admin_show_pass").sync_detailed(created_pass.pass_id, client=admin))
admin_key = record(
    "admin_create_key",
    op("admin_create_key").sync_detailed(client=admin, body=m.AdminKeyCreate(pass_id=created_pass.pass_id, name="python")),
)
record("admin_list_keys", op("admin_list_keys").sync_detailed(client=admin, pass_=created_pass.pass_id))

api_client = client.AuthenticatedClient(base_url=base, token=admin_key.key, raise_on_unexpected_status=True)
record("get_usage", op("get_usage").sync_detailed(client=api_client))
# No depth: the server's default, and the generated model's field may be left out.
decision = record(
    "create_decision",
    op("create_decision").sync_detailed(
        client=api_client, body=m.DecisionRequestType1(mode="noul", question="Should we refund it?", context=CONTEXT)
    ),
)
system_one = record(
    "system_one",
    op("system_one").sync_detailed(
        client=api_client,
        body=m.SystemOneRequest.from_dict(
            {
                "model": "jev-latest",
                "state": {"ticket": {"text": "Charged twice", "lines": [1, 2, {"refund": True}]}, "customer": None},
                "questions": {
                    "team": {"type": "choice", "criteria": {"billing": {"owns": ["refunds"]}, "technical": None}},
                    "anger": {"type": "score", "criteria": ["calm", "angry"]},
                },
            }
        ),
    ),
)
record("list_models", op("list_models").sync_detailed(client=api_client))

# A browser: its own page's Origin, and the pass cookie POST /v1/pass sets.
browser = client.Client(base_url=base, headers={"Origin": base}, raise_on_unexpected_status=True)
verified = op("create_pass").sync_detailed(client=browser, body=m.PassCreate())
record("create_pass", verified)
# The pass cookie is this browser's credential (the document's passCookie scheme): the
# authenticated client sends it in the header its credential goes in.
browser = client.AuthenticatedClient(
    base_url=base,
    token=verified.headers["set-cookie"].split(";")[0],
    prefix="",
    auth_header_name="Cookie",
    headers={"Origin": base},
    raise_on_unexpected_status=True,
)
record("get_pass", op("get_pass").sync_detailed(client=browser))
web_key = record("create_key", op("create_key").sync_detailed(client=browser))
record("name_pass_key", op("name_pass_key").sync_detailed(web_key.id, client=browser, body=m.KeyNameChange(name="laptop")))
record(
    "create_web_decision",
    op("create_web_decision").sync_detailed(
        client=browser,
        body=m.WebDecisionRequestType1(mode="noul", question="Should we refund it?", context=CONTEXT, key_id=web_key.id),
    ),
)
record("delete_pass_key", op("delete_pass_key").sync_detailed(web_key.id, client=browser))

record("revoke_key", op("revoke_key").sync_detailed(client=api_client))
record("admin_revoke_key", op("admin_revoke_key").sync_detailed(admin_key.id, client=admin))

answers = system_one.answers.additional_properties
print(
    json.dumps(
        {
            "operations": sorted(mod.name for mod in pkgutil.iter_modules(api.__path__)),
            "calls": calls,
            "decision": {"mode": decision.mode, "yes": decision.result.yes_probability},
            "system_one": {
                "model": system_one.model,
                "answers": {qid: type(answer).__name__ for qid, answer in answers.items()},
                "team": sorted(answers["team"].probabilities.additional_properties),
                "legend": answers["anger"].legend.to_dict(),
            },
        }
    )
)
