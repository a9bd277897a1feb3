"""The wire contract (docs/contract) exercised from Python with the official Temporal SDK only.

Against a running Genace worker, simulator and Temporal server: starts operations, reads describe,
waits for results, resolves reviews by signal and by update (refused ones too, a malformed signal
included), lets a review settle itself from Genace's search, cancels an operation by update,
starts the same operation twice without a second POST, sees a start of a running id with another
request refused by the workflow (Update-with-Start with `join`), and checks every payload read back
against the JSON Schemas.

A review waits for a person only when its evidence cannot settle it: the worker settles a lost
POST response itself (GENACE_AUTO_RECONCILE, on by default) when Genace's search lists exactly one
job of the operation. The checks that resolve a review by hand therefore switch the simulator's
search off first (POST /_sim/faults {"search_enabled": false}), as a Genace without that search
would be, and wait for describe's awaitsOperator.

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
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowFailureError,
    WorkflowUpdateFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError

from genace_codec import data_converter_from_env

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

    def faults(self, **changes):
        request = urllib.request.Request(
            self.base + "/_sim/faults",
            data=json.dumps(changes).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        urllib.request.urlopen(request, timeout=10).close()

    def lose_next_post_response(self):
        self.faults(lose_post_response_next=1)

    def posts(self, operation_id):
        return self.get("/_sim/stats")["posts_by_operation"].get(operation_id, 0)

    def job_of(self, operation_id):
        return self.get(f"/_sim/jobs?operation_id={operation_id}")["jobs"][0]["id"]


class Operations:
    """Starts and reaches operations the way docs/contract/workflow.json says."""

    def __init__(self, client):
        self.client = client

    async def start(self, operation_id, request):
        """Update-with-Start with `join`, as docs/clients.md tells a service to start: the workflow
        itself refuses another request under a running id (WorkflowUpdateFailedError)."""
        start = WithStartWorkflowOperation(
            WORKFLOW["workflowType"],
            request,
            id=WORKFLOW["workflowIdPrefix"] + operation_id,
            task_queue=WORKFLOW["taskQueue"],
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
        try:
            answer = await self.client.execute_update_with_start_workflow(
                "join", request, start_workflow_operation=start
            )
        except WorkflowAlreadyStartedError:
            # An ended operation: the start operation holds the same error; take it from there too,
            # or asyncio reports it as never retrieved.
            try:
                await start.workflow_handle()
            except WorkflowAlreadyStartedError:
                pass
            raise
        conforms(answer, WORKFLOW["updates"]["join"]["result"])
        return await start.workflow_handle()

    async def start_without_join(self, operation_id, request):
        """A plain start, for an input the workflow itself must refuse (it fails at once)."""
        return await self.client.start_workflow(
            WORKFLOW["workflowType"],
            request,
            id=WORKFLOW["workflowIdPrefix"] + operation_id,
            task_queue=WORKFLOW["taskQueue"],
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )

    async def until_phase(self, handle, phase, seconds=60):
        return await self.until(handle, lambda view: view["phase"] == phase, seconds)

    async def until_awaits_operator(self, handle, seconds=60):
        return await self.until(handle, lambda view: view["awaitsOperator"], seconds)

    async def until(self, handle, condition, seconds):
        deadline = time.monotonic() + seconds
        while True:
            view = await handle.query("describe")
            if condition(view) or time.monotonic() > deadline:
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
    # GENACE_PAYLOAD_KEYS, when set: the worker's payload encryption (genace_codec.py).
    ops = Operations(await Client.connect(args.temporal, namespace=args.namespace,
                                          data_converter=data_converter_from_env()))
    run = uuid.uuid4().hex[:8]

    # Delivered, and a second and third start of the same id never POST again.
    op = f"py-{run}-fox"
    conforms(request(op, "a red fox"), "start-input.schema.json")
    first = await ops.start(op, request(op, "a red fox"))
    other = request(op, "a blue whale")
    other["model"] = "video-v1"
    try:
        await ops.start(op, other)
        check(False, "a start of the running id with another request is refused")
    except WorkflowUpdateFailedError as e:
        check(f"operation {op} was started with another request (model image-v1 was started, "
              "not video-v1; the input differs)" in str(e.cause),
              f"a start of the running id with another request is refused, naming what differs: {e.cause}")
    same = request(op, "a red fox")
    same["account"] = "default"
    joined = await ops.start(op, same)
    check(joined.first_execution_run_id == first.first_execution_run_id,
          "a second start with the same request joins the running operation")
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

    view = await first.query("describe")
    conforms(view, "describe-result.schema.json")
    check(len(result["artifacts"]) >= 1 and result["artifacts"] == view["artifacts"],
          f"the result and describe list the delivered artifacts: {result['artifacts']}")

    # A lost POST response with Genace's search on: the review settles itself from its evidence.
    op = f"py-{run}-settles"
    sim.lose_next_post_response()
    handle = await ops.start(op, request(op, "lost and found"))
    result = await handle.result()
    check(result["phase"] == "DELIVERED", f"a review with one job found settles itself: {result}")
    view = await handle.query("describe")
    conforms(view, "describe-result.schema.json")
    review = view["review"]
    check(review is not None and review["reason"] == "post_outcome_unknown"
          and review["evidence"]["selfSettleJobId"] == sim.job_of(op)
          and review["resolution"]["resolvedBy"] == "reconciler" and not view["awaitsOperator"],
          f"describe shows the evidence and who settled it: {review}")
    check(sim.posts(op) == 1, f"{op} was POSTed once")

    # From here on, reviews wait for a person: a Genace without the search.
    sim.faults(search_enabled=False)

    # A lost POST response: review, refused signals, then a resolution by signal.
    op = f"py-{run}-signal"
    sim.lose_next_post_response()
    handle = await ops.start(op, request(op, "lost by signal"))
    view = await ops.until_awaits_operator(handle)
    conforms(view, "describe-result.schema.json")
    check(view["phase"] == "IN_REVIEW" and view["awaitsOperator"],
          f"a lost POST response opens a review that waits for a person: {view['phase']}")
    check(view["review"]["evidence"]["search"] == "not_offered", f"the evidence says why: {view['review']}")
    await handle.signal("resolveReconciliation", {"decision": "found_remote_job", "reason": "no id given"})
    await handle.signal("resolveReconciliation", ["abandon"])
    view = await ops.until(handle, lambda v: len(v["rejectedResolutions"]) >= 2, 30)
    check(len(view["rejectedResolutions"]) == 2 and view["phase"] == "IN_REVIEW",
          f"a signal without the job id, and one that is no object, are recorded as refused: {view['rejectedResolutions']}")
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
    check((await ops.until_awaits_operator(handle))["phase"] == "IN_REVIEW", "a second review is open")
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

    # A cancel by update while Genace renders: refused without a requester, then accepted.
    op = f"py-{run}-cancel"
    sim.faults(job_duration_ms=60000)
    handle = await ops.start(op, request(op, "cancelled while rendering"))
    view = await ops.until_phase(handle, "OBSERVING")
    sim.faults(job_duration_ms=2000)
    check(view["phase"] == "OBSERVING", f"the render runs: {view['phase']}")
    try:
        await handle.execute_update("cancel", {"reason": "nobody said who"})
        check(False, "a cancel without a requester is refused")
    except WorkflowUpdateFailedError as e:
        check("who cancels" in str(e.cause), f"a cancel without a requester is refused: {e.cause}")
    cancel = {"reason": "the customer cancelled the order", "requestedBy": "contract-check"}
    conforms(cancel, "cancel-request.schema.json")
    answer = await handle.execute_update("cancel", cancel)
    conforms(answer, "cancel-result.schema.json")
    result = await handle.result()
    conforms(result, "workflow-result.schema.json")
    check(result["phase"] == "ABANDONED" and result["remoteJobId"] == sim.job_of(op)
          and "cancelled by contract-check" in result["detail"] and result["artifacts"] == [],
          f"cancelled, it ends abandoned with the job id kept: {result}")
    check(sim.posts(op) == 1, f"{op} was POSTed once")

    # A start input that breaks the contract fails at once, naming the field, with no POST.
    op = f"py-{run}-bad"
    handle = await ops.start_without_join(op, {"operationId": op, "model": "image-v1", "input": '{"prompt":"x"}'})
    try:
        await handle.result()
        check(False, "an input that is a string fails the workflow")
    except WorkflowFailureError as e:
        cause = e.cause
        check(isinstance(cause, ApplicationError) and cause.type == "InvalidRequest"
              and "input must be a JSON object" in cause.message,
              f"an input that is a string fails the workflow naming the field: {cause}")
    check(sim.posts(op) == 0, f"{op} was never POSTed")
    sim.faults(search_enabled=True)

    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main())
