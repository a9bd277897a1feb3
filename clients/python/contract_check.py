"""The wire contract (docs/contract) exercised from Python with the official Temporal SDK only.

Against a running Genace worker, simulator and Temporal server: starts operations, reads describe,
waits for results, resolves reviews by signal and by update (refused ones too), starts the same
operation twice without a second POST, and checks every payload read back against the JSON Schemas.

Usage: contract_check.py --temporal HOST:PORT --simulator http://HOST:PORT [--namespace NS]
Prints one line per check and "N passed, 0 failed"; exits 1 at the first failed check.
"""

import argparse
import asyncio
import json
import pathlib
import sys
import time
import urllib.request
import uuid

import jsonschema
import referencing
from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError

CONTRACT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "contract"
WORKFLOW = json.loads((CONTRACT / "workflow.json").read_text())
SCHEMAS = {p.name: json.loads(p.read_text()) for p in CONTRACT.glob("*.schema.json")}
REGISTRY = referencing.Registry().with_resources(
    (schema["$id"], referencing.Resource.from_contents(schema)) for schema in SCHEMAS.values()
)
passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"== python: FAILED: {what}")
        print(f"{passed} passed, 1 failed")
        sys.exit(1)
    passed += 1
    print(f"== python: ok: {what}")


def conforms(document, schema_name):
    schema = SCHEMAS[schema_name]
    validator = jsonschema.Draft202012Validator(schema, registry=REGISTRY)
    errors = [e.message for e in validator.iter_errors(document)]
    check(not errors, f"{json.dumps(document)[:80]}... matches {schema_name} {errors}")


class Simulator:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return json.load(response)

    def lose_next_post_response(self):
        request = urllib.request.Request(
            self.base + "/_sim/faults",
            data=json.dumps({"lose_post_response_next": 1}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        urllib.request.urlopen(request, timeout=10).close()

    def posts(self, operation_id):
        return self.get("/_sim/stats")["posts_by_operation"].get(operation_id, 0)

    def job_of(self, operation_id):
        return self.get(f"/_sim/jobs?operation_id={operation_id}")["jobs"][0]["id"]


class Operations:
    """Starts and reaches operations the way docs/contract/workflow.json says."""

    def __init__(self, client):
        self.client = client

    async def start(self, operation_id, request):
        return await self.client.start_workflow(
            WORKFLOW["workflowType"],
            request,
            id=WORKFLOW["workflowIdPrefix"] + operation_id,
            task_queue=WORKFLOW["taskQueue"],
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )

    async def until_phase(self, handle, phase, seconds=60):
        deadline = time.monotonic() + seconds
        while True:
            view = await handle.query("describe")
            if view["phase"] == phase or time.monotonic() > deadline:
                return view
            await asyncio.sleep(0.5)


def request(operation_id, prompt):
    return {"operationId": operation_id, "model": "image-v1", "input": {"prompt": prompt}}


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--temporal", required=True)
    parser.add_argument("--simulator", required=True)
    parser.add_argument("--namespace", default="default")
    args = parser.parse_args()
    sim = Simulator(args.simulator)
    ops = Operations(await Client.connect(args.temporal, namespace=args.namespace))
    run = uuid.uuid4().hex[:8]

    # Delivered, and a second and third start of the same id never POST again.
    op = f"py-{run}-fox"
    conforms(request(op, "a red fox"), "start-input.schema.json")
    first = await ops.start(op, request(op, "a red fox"))
    joined = await ops.start(op, request(op, "a red fox"))
    check(joined.first_execution_run_id == first.first_execution_run_id, "a second start joins the running operation")
    view = await first.query("describe")
    conforms(view, "describe-result.schema.json")
    check(view["operationId"] == op, "describe names the operation")
    result = await first.result()
    conforms(result, "workflow-result.schema.json")
    check(result["phase"] == "DELIVERED", f"the operation is delivered: {result}")
    try:
        await ops.start(op, request(op, "a red fox"))
        check(False, "starting a finished operation again is refused")
    except WorkflowAlreadyStartedError:
        check(True, "starting a finished operation again is refused")
    check(sim.posts(op) == 1, f"{op} was POSTed once ({sim.posts(op)})")

    # A lost POST response: review, a refused signal, then a resolution by signal.
    op = f"py-{run}-signal"
    sim.lose_next_post_response()
    handle = await ops.start(op, request(op, "lost by signal"))
    view = await ops.until_phase(handle, "IN_REVIEW")
    conforms(view, "describe-result.schema.json")
    check(view["phase"] == "IN_REVIEW", f"a lost POST response opens a review: {view['phase']}")
    await handle.signal("resolveReconciliation", {"decision": "found_remote_job", "reason": "no id given"})
    view = await handle.query("describe")
    check(len(view["rejectedResolutions"]) == 1 and view["phase"] == "IN_REVIEW",
          f"a signal without the job id is recorded as refused: {view['rejectedResolutions']}")
    resolution = {"decision": "found_remote_job", "remoteJobId": sim.job_of(op),
                  "reason": "seen in Genace", "resolvedBy": "contract-check"}
    conforms(resolution, "review-resolution.schema.json")
    await handle.signal("resolveReconciliation", resolution)
    result = await handle.result()
    check(result["phase"] == "DELIVERED", f"resolved by signal, it is delivered: {result}")
    check(sim.posts(op) == 1, f"{op} was POSTed once")

    # A lost POST response resolved by update: a refused update first.
    op = f"py-{run}-update"
    sim.lose_next_post_response()
    handle = await ops.start(op, request(op, "lost by update"))
    check((await ops.until_phase(handle, "IN_REVIEW"))["phase"] == "IN_REVIEW", "a second review is open")
    try:
        await handle.execute_update("resolve", {"decision": "found_remote_job", "reason": "no id given"})
        check(False, "an update without the job id is refused")
    except WorkflowUpdateFailedError as e:
        check("remote job id" in str(e.cause), f"an update without the job id is refused: {e.cause}")
    answer = await handle.execute_update("resolve", {"decision": "abandon", "reason": "customer left"})
    check(answer == "accepted abandon", f"the update answers {answer!r}")
    result = await handle.result()
    check(result["phase"] == "ABANDONED", f"resolved by update, it is abandoned: {result}")
    check(sim.posts(op) == 1, f"{op} was POSTed once")

    # A start input that breaks the contract fails at once, naming the field, with no POST.
    op = f"py-{run}-bad"
    handle = await ops.start(op, {"operationId": op, "model": "image-v1", "input": '{"prompt":"x"}'})
    try:
        await handle.result()
        check(False, "an input that is a string fails the workflow")
    except WorkflowFailureError as e:
        cause = e.cause
        check(isinstance(cause, ApplicationError) and cause.type == "InvalidRequest"
              and "input must be a JSON object" in cause.message,
              f"an input that is a string fails the workflow naming the field: {cause}")
    check(sim.posts(op) == 0, f"{op} was never POSTed")

    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main())
