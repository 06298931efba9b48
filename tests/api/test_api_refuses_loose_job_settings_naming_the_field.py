"""``POST /api/v1/jobs`` refuses a setting outside its range, of the wrong type or unknown
with a 422 naming the field, and creates no job: the ranges are the job form's."""

import pytest

from debates.models import DebateJob


@pytest.mark.parametrize(
    ("setting", "detail"),
    [
        ({"max_tokens": 10**12}, "max_tokens: Input should be less than or equal to 1000000"),
        (
            {"judgments_per_pair": 10**6},
            "judgments_per_pair: Input should be less than or equal to 9",
        ),
        ({"temperature": 1e308}, "temperature: Input should be less than or equal to 2"),
        ({"rounds": True}, "rounds: Input should be a valid integer"),
        ({"rounds": "2"}, "rounds: Input should be a valid integer"),
        ({"batch": 1}, "batch: Input should be a valid boolean"),
        ({"gold_share": 0.9}, "gold_share: Input should be less than or equal to 0.5"),
        ({"human_budget": -1}, "human_budget: Input should be greater than or equal to 0"),
        ({"rond": 2}, "rond: Extra inputs are not permitted"),
    ],
)
def test_a_loose_setting_is_a_422_naming_it_and_makes_no_job(api_as, tiny_dataset, setting, detail):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, **setting}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 422, answer.content
    assert answer.json()["detail"] == detail
    assert DebateJob.objects.count() == 0


def test_every_number_of_every_input_schema_has_a_range(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    unbounded = []
    for name, component in schema["components"]["schemas"].items():
        if not name.endswith("In"):
            continue
        for field, spec in component["properties"].items():
            for option in spec.get("anyOf", [spec]):
                if option.get("type") in ("integer", "number") and not (
                    "minimum" in option and "maximum" in option
                ):
                    unbounded.append(f"{name}.{field}")
    assert unbounded == []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["schema"].get("type") == "integer":
                    assert {"minimum", "maximum"} <= set(parameter["schema"]), (method, path)


def test_input_schemas_refuse_unknown_fields(client, db):
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    inputs = {name: s for name, s in schemas.items() if name.endswith("In")}
    assert set(inputs) >= {"JobIn", "RefineIn", "FloorIn", "PoolIn", "RetrieveIn", "GuidelinesIn"}
    assert {name: s.get("additionalProperties") for name, s in inputs.items()} == {
        name: False for name in inputs
    }
