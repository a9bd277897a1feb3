"""An operator's journey through the Temporal Web UI, in a real browser (scripts/webui-tier.sh).

Against `./genace dev` (the Temporal dev server and its Web UI) and a `./genace worker`, as an
operator would, on histories whose payloads are encrypted: see an input decoded by the codec
server, find the reviews with the query `GenaceNeedsReview = true`, open one, read its
reason and evidence in the current details, resolve it with the signal `resolveReconciliation`
through More Actions -> Send a Signal, see a malformed resolution refused in the details, and
cancel an operation held in dispatch with Request Cancellation. The ledger (`./genace ops show`)
and the simulator's POST counts say whether the UI did what it showed.

Every step prints one line; a failed step saves a screenshot, prints why and exits 1. The closing
line is "N passed, 0 failed".

Environment: GENACE_ROOT (the repository), TEMPORAL_UI (the Web UI's address), GENACE_BASE_URL
(the simulator) and what `./genace ops` needs (DATABASE_URL...), GENACE_PAYLOAD_KEYS with
GENACE_CODEC_ENDPOINT (./genace dev's codec server) and TEMPORAL_CLI and TEMPORAL_ADDRESS (to read
the raw history), WEBUI_SCREENSHOTS (a directory),
CHROMIUM and CHROMEDRIVER (default Debian's /usr/bin/chromium and /usr/bin/chromedriver).
"""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.environ["GENACE_ROOT"], "scripts", "lib"))
import history_payloads  # noqa: E402 (scripts/lib, beside the tiers that share it)
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

ROOT = os.environ["GENACE_ROOT"]
UI = os.environ["TEMPORAL_UI"].rstrip("/")
SIMULATOR = os.environ["GENACE_BASE_URL"].rstrip("/")
SHOTS = os.environ["WEBUI_SCREENSHOTS"]
# Payloads are encrypted (GENACE_PAYLOAD_KEYS): ./genace dev's codec server decodes them for the
# Web UI and for the CLI given --codec-endpoint.
CODEC = os.environ["GENACE_CODEC_ENDPOINT"]
TEMPORAL_CLI = os.environ["TEMPORAL_CLI"]
REVIEWS_QUERY = "GenaceNeedsReview = true"
SIGNAL = "resolveReconciliation"
# Chromium's own calls home (component updates, sync, field trials) are refused by a closed
# network; without these flags its page loads wait for them.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]

passed = 0


def log(message):
    print("== webui: " + message, flush=True)


class StepFailed(Exception):
    pass


@contextlib.contextmanager
def step(name, browser=None):
    """One step of the journey: passes, or fails the whole run with a screenshot."""
    global passed
    try:
        yield
    except Exception as e:  # a step fails for whatever reason, and says which
        print(f"== webui: FAILED: {name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        if browser is not None:
            path = browser.screenshot("failed")
            print(f"== webui: the page then ({browser.driver.current_url}): {path}", file=sys.stderr)
        print(f"{passed} passed, 1 failed")
        sys.exit(1)
    passed += 1
    log("ok: " + name)


def wait_until(what, probe, timeout=60, every=0.5):
    """probe's first truthy answer within timeout seconds, else StepFailed naming what."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(every)
    raise StepFailed(f"not within {timeout} s: {what} (last seen: {last!r})")


# -- the repository's launcher and the simulator, as the operator's second terminal ---------------


def genace(*args):
    done = subprocess.run(
        [os.path.join(ROOT, "genace"), *args], capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise StepFailed(f"./genace {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def ledger(operation_id):
    """The ledger's row as `./genace ops show --json` prints it, or None before it exists."""
    done = subprocess.run(
        [os.path.join(ROOT, "genace"), "ops", "show", operation_id, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stdout) if done.returncode == 0 else None


def phase_of(operation_id):
    row = ledger(operation_id)
    return row and row["phase"]


def simulator(path, body=None):
    request = urllib.request.Request(
        SIMULATOR + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def posts_for(operation_id):
    return simulator("/_sim/stats")["posts_by_operation"].get(operation_id, 0)


def review_waiting(operation_id):
    """Submits an operation whose POST response is lost: a review only an operator resolves."""
    simulator("/_sim/faults", {"lose_post_response_next": 1, "search_enabled": False})
    genace("submit", "--model", "image-v1", "--input", '{"prompt":"a lost fox"}',
           "--operation-id", operation_id)
    wait_until(f"{operation_id} in review", lambda: phase_of(operation_id) == "in_review")


def temporal_show(workflow_id, *args):
    """The history as `temporal workflow show --output json` prints it, the CLI of ./genace dev."""
    done = subprocess.run(
        [TEMPORAL_CLI, "workflow", "show", "--workflow-id", workflow_id, "--output", "json",
         "--address", os.environ["TEMPORAL_ADDRESS"], *args],
        capture_output=True, text=True, timeout=60,
    )
    if done.returncode != 0:
        raise StepFailed(f"temporal workflow show exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def clear_by_design(path):
    return ("searchAttributes" in path
            or path.endswith("/header/fields/_tracer-data")
            or path in ("/events/markerRecordedEventAttributes/details/changeId/payloads",
                        "/events/markerRecordedEventAttributes/details/version/payloads"))


def payloads_of(history_json):
    """(path, encoding, data as text) of every payload in a history the CLI printed in JSON."""
    return history_payloads.payloads(json.loads(history_json))


# -- the browser ------------------------------------------------------------------------------------


class Browser:
    def __init__(self):
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for flag in CHROMIUM_FLAGS + ["--user-data-dir=" + tempfile.mkdtemp(prefix="webui-chromium-")]:
            options.add_argument(flag)
        # An explicit driver: Selenium Manager would otherwise try to download one.
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(60)

    def open(self, path):
        self.driver.get(UI + path)

    def visible(self, xpath, timeout=30):
        """The first displayed element the XPath finds (the UI keeps hidden copies for small screens)."""

        def find():
            try:
                return next((e for e in self.driver.find_elements(By.XPATH, xpath) if e.is_displayed()), None)
            except WebDriverException:
                return None

        return wait_until("a visible " + xpath, find, timeout)

    def click(self, xpath, timeout=30):
        def attempt():
            try:
                element = self.visible(xpath, timeout)
                if not element.is_enabled():
                    return False
                element.click()
                return True
            except WebDriverException:  # moved or covered while the page settles: try again
                return False

        wait_until("a click on " + xpath, attempt, timeout)

    def text_of(self, xpath, timeout=30):
        return self.visible(xpath, timeout).text

    def screenshot(self, name, height=None):
        """Saves the window; a taller one for a height, e.g. to show long details whole."""
        path = os.path.join(SHOTS, name + ".png")
        if height is None:
            self.driver.save_screenshot(path)
            return path
        size = self.driver.get_window_size()
        self.driver.set_window_size(size["width"], height)
        try:
            time.sleep(1)  # the panels take the new height
            self.driver.save_screenshot(path)
        finally:
            self.driver.set_window_size(size["width"], size["height"])
        return path

    def workflow_page(self, operation_id):
        workflow_id = urllib.parse.quote("generation/" + operation_id, safe="")
        self.open("/namespaces/default/workflows/" + workflow_id)
        self.visible(f"//h1[@data-testid='workflow-id-heading' and contains(., 'generation/{operation_id}')]")

    def page_showing(self, needle, timeout=60):
        """The page's whole text once it shows needle (payloads are decoded after the page loads)."""
        def read():
            text = self.driver.find_element(By.TAG_NAME, "body").get_attribute("innerText")
            return text if needle in text else None

        return wait_until(f"the page showing {needle!r}", read, timeout, every=1)

    def status_is(self, status):
        self.visible(f"//*[@data-testid='execution-status' and normalize-space(.)='{status}']", timeout=60)

    def current_details(self, *needles, timeout=60):
        """The rendered Current Details of the open workflow, once they show every needle."""
        self.click("//a[@data-testid='user-metadata-tab']")

        def read():
            try:
                frame = self.visible("//iframe[@id='user-metadata-current-details']", timeout=10)
                self.driver.switch_to.frame(frame)
                # All of it, also what the panel shows only when scrolled.
                text = self.driver.find_element(By.TAG_NAME, "body").get_attribute("innerText")
            except (WebDriverException, StepFailed):
                text = None
            finally:
                self.driver.switch_to.default_content()
            if text and all(n in text for n in needles):
                return text
            # The panel shows the details of when the page was loaded: load them again.
            self.driver.refresh()
            return None

        return wait_until(f"current details showing {needles}", read, timeout, every=1)

    def send_signal(self, payload, screenshot=None):
        """More Actions -> Send a Signal: picks our signal in the form's select, types the payload."""
        self.click("//button[@aria-controls='workflow-actions' and normalize-space(.)='More Actions']")
        self.click("//li[@data-testid='signal-button']")
        self.click("//button[@data-testid='signal-select-button']")
        def offered():
            return sorted({
                " ".join((e.get_attribute("textContent") or "").split())
                for e in self.driver.find_elements(
                    By.XPATH, "//ul[@id='signal-select-select']/li[@role='option']"
                )
            })

        with contextlib.suppress(StepFailed):
            wait_until("the signal names in the form's select", lambda: SIGNAL in offered(), 10)
        options = offered()
        if SIGNAL not in options:
            raise StepFailed(
                f"the signal form offers {options}, not {SIGNAL}: the UI lists the names the"
                " workflow's __temporal_workflow_metadata query returns"
            )
        self.click(f"//ul[@id='signal-select-select']/li[normalize-space(.)='{SIGNAL}']")
        wait_until(
            "the select showing " + SIGNAL,
            lambda: self.visible("//input[@data-testid='signal-select']").get_attribute("value") == SIGNAL,
            10,
        )
        editor = self.visible("//div[@role='textbox' and @aria-label='Data']")
        editor.click()
        editor.send_keys(payload)
        # Leaving the editor reformats the JSON, which moves the Submit button: leave it first, so
        # that the click lands where the button then is.
        editor.send_keys(Keys.TAB)
        typed = wait_until("the payload in the editor", lambda: editor.text.strip() or None, 10)
        if compact(typed) != compact(payload):
            raise StepFailed(f"the editor holds {typed!r}, not {payload!r}")
        if screenshot:
            time.sleep(0.5)
            self.screenshot(screenshot)
        self.click("//button[@type='submit' or normalize-space(.)='Submit'][normalize-space(.)='Submit']")
        self.visible("//*[normalize-space(.)='Workflow signaled.']")

    def quit(self):
        self.driver.quit()


def payload_skeletons(details):
    """The payloads the details offer to paste, by decision: each must be JSON as it is shown."""
    skeletons = {}
    for line in details.splitlines():
        if line.strip().startswith('{"decision"'):
            try:
                payload = json.loads(line)
            except ValueError as e:
                raise StepFailed(f"a payload to paste is not JSON as shown: {line!r} ({e})")
            skeletons[payload["decision"]] = payload
    return skeletons


def compact(text):
    """JSON compared as values where it parses, else as text without whitespace."""
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except ValueError:
        return "".join(text.split())


# -- the journey ------------------------------------------------------------------------------------


def main():
    os.makedirs(SHOTS, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(SHOTS, "failed.png"))  # a past run's
    browser = None
    with step("Chromium starts headless, driven through Debian's chromedriver"):
        browser = Browser()
    try:
        journey(browser)
    finally:
        browser.quit()
    print(f"{passed} passed, 0 failed")


def journey(browser):
    with step("the orphan sweeper's Schedule is on the Schedules page", browser):
        browser.open("/namespaces/default/schedules")
        browser.visible("//a[normalize-space(.)='genace-orphan-sweeper']", timeout=60)
        browser.screenshot("00-schedules")

    with step("an operation is delivered, and a lost POST response puts webui-found in review", browser):
        genace("submit", "--model", "image-v1", "--input", '{"prompt":"a red fox"}',
               "--operation-id", "webui-fine")
        wait_until("webui-fine delivered", lambda: phase_of("webui-fine") == "delivered")
        review_waiting("webui-found")

    with step("the history holds webui-fine's prompt encrypted: the CLI without the codec sees"
              " binary/encrypted, with --codec-endpoint the prompt", browser):
        raw = payloads_of(temporal_show("generation/webui-fine"))
        if any("a red fox" in data for _, _, data in raw):
            raise StepFailed("`temporal workflow show --output json` without the codec shows the prompt")
        # What stays clear by design (docs/security.md): search attributes (the Web UI's list
        # queries them), the SDK's version markers (a change id and a number) and the tracing
        # header (span ids); nothing else does.
        clear = [(path, data) for path, encoding, data in raw
                 if encoding != "binary/encrypted" and not clear_by_design(path)]
        if not raw or clear:
            raise StepFailed(f"payloads in clear without the codec: {clear}")
        decoded = payloads_of(temporal_show("generation/webui-fine", "--codec-endpoint", CODEC))
        if not any("a red fox" in data for _, _, data in decoded):
            raise StepFailed(f"with --codec-endpoint {CODEC} the CLI does not show the prompt")
        sealed = sum(1 for _, encoding, _ in raw if encoding == "binary/encrypted")
        log(f"{len(raw)} payloads in the history: {sealed} binary/encrypted, the others search"
            " attributes, version markers and tracing headers")

    with step("the Web UI shows webui-fine's input decoded through the codec server", browser):
        browser.workflow_page("webui-fine")
        browser.page_showing("a red fox")
        browser.screenshot("00b-decoded-input", height=1400)

    with step(f"the list filtered by {REVIEWS_QUERY} shows webui-found and not webui-fine", browser):
        def listed():
            browser.open("/namespaces/default/workflows?query=" + urllib.parse.quote(REVIEWS_QUERY))
            try:
                browser.visible("//a[normalize-space(.)='generation/webui-found']", timeout=10)
                return True
            except StepFailed:
                return False

        wait_until("generation/webui-found in the list", listed, 60, every=1)
        rows = [
            e.text
            for e in browser.driver.find_elements(
                By.XPATH, "//a[starts-with(normalize-space(.), 'generation/')]"
            )
        ]
        if "generation/webui-fine" in rows:
            raise StepFailed(f"the delivered operation is listed as needing review: {rows}")
        browser.screenshot("01-reviews-list")

    with step("its page shows the reason and the evidence in the current details", browser):
        browser.click("//a[normalize-space(.)='generation/webui-found']")
        browser.visible("//h1[@data-testid='workflow-id-heading' and contains(., 'generation/webui-found')]")
        details = browser.current_details("in_review", "Reason: post_outcome_unknown", "Evidence: ")
        log("current details: " + " / ".join(line for line in details.splitlines() if line.strip()))
        browser.screenshot("02-review-details", height=1650)

    with step(f"and what to send: the signal {SIGNAL}, a payload to paste per decision, the command",
              browser):
        skeletons = payload_skeletons(details)
        if sorted(skeletons) != ["abandon", "found_remote_job", "not_submitted"]:
            raise StepFailed(f"the details' payloads are for {sorted(skeletons)}")
        for needle in ("Resolve with the signal " + SIGNAL,
                       "./genace ops resolve webui-found --found-remote-job <job id>"):
            if needle not in details:
                raise StepFailed(f"the details do not say {needle!r}")

    job = simulator("/_sim/jobs?operation_id=webui-found")["jobs"][0]["id"]
    with step(f"More Actions -> Send a Signal sends {SIGNAL}: the pasted payload, filled in ({job})",
              browser):
        resolution = dict(skeletons["found_remote_job"], remoteJobId=job,
                          reason="the job is on Genace's dashboard", resolvedBy="webui-operator")
        browser.send_signal(json.dumps(resolution), screenshot="03-send-signal")

    with step("the ledger has webui-found delivered, resolved by the operator, with one POST", browser):
        wait_until("webui-found delivered", lambda: phase_of("webui-found") == "delivered")
        row = ledger("webui-found")
        if row["remote_job_id"] != job or row["review"]["resolved_by"] != "webui-operator":
            raise StepFailed(f"the ledger's row: remote job {row['remote_job_id']}, review {row['review']}")
        if posts_for("webui-found") != 1:
            raise StepFailed(f"{posts_for('webui-found')} POSTs for webui-found")
        browser.workflow_page("webui-found")
        browser.status_is("Completed")
        browser.screenshot("04-resolved-delivered", height=1500)

    with step("a second review, webui-refused, waits for an operator", browser):
        review_waiting("webui-refused")
        browser.workflow_page("webui-refused")
        browser.current_details("in_review", "post_outcome_unknown")

    malformed = json.dumps(  # no remoteJobId
        {"decision": "found_remote_job", "reason": "typed without the job id",
         "resolvedBy": "webui-operator"}
    )
    with step("a malformed resolution sent the same way is refused, and the details say why", browser):
        browser.send_signal(malformed)
        details = browser.current_details(
            "The latest resolution was refused.", "found_remote_job needs the remote job id")
        log("current details: " + " / ".join(line for line in details.splitlines() if line.strip()))
        if details.index("The latest resolution was refused.") > details.index("Reason: "):
            raise StepFailed("the refusal is not at the top of the details")
        if phase_of("webui-refused") != "in_review" or posts_for("webui-refused") != 1:
            raise StepFailed("the refused resolution changed the operation")
        browser.screenshot("05-refused-details", height=1900)

    with step("an operation held by a dispatch pause waits without a POST", browser):
        genace("ops", "pause-dispatch", "--reason", "browser tier: hold one operation")
        genace("submit", "--model", "image-v1", "--input", '{"prompt":"held"}',
               "--operation-id", "webui-cancel")
        wait_until("webui-cancel registered as pending", lambda: phase_of("webui-cancel") == "pending")

    with step("Request Cancellation ends it abandoned, with no POST", browser):
        browser.workflow_page("webui-cancel")
        browser.click("//button[normalize-space(.)='Request Cancellation']")
        browser.visible("//button[normalize-space(.)='Confirm']")
        browser.screenshot("06-request-cancellation")
        browser.click("//button[normalize-space(.)='Confirm']")
        wait_until("webui-cancel abandoned", lambda: phase_of("webui-cancel") == "abandoned")
        genace("ops", "resume-dispatch")
        if posts_for("webui-cancel") != 0:
            raise StepFailed(f"{posts_for('webui-cancel')} POSTs for the cancelled operation")
        browser.workflow_page("webui-cancel")
        browser.status_is("Canceled")
        browser.current_details("abandoned")
        browser.screenshot("07-cancelled")


if __name__ == "__main__":
    main()
