"""The job UI on `--ui-port`, in a real browser: headless Chromium (Debian's `chromium` with
`chromedriver`, driven by Selenium) loads the page while a multi-stage query runs and checks
that the query shows as running, that the DAG has the job graph's stages and that the task
table has rows; after the query it shows as finished with its row count. Screenshots go to
~/.cache/ember/ui-screenshots/<time>-<mode>-<client>/ for a person to look at.

The UI is Ember's own (Spark's UI is another program): nothing here is recorded from Spark.
"""

import json
import os
import shutil
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from test_observability import job_graph_stages

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = Path.home() / ".cache" / "ember" / "ui-screenshots"
ROWS_PER_PARTITION = 40
SLEEP_PER_ROW = 0.05  # about 2 s per partition


@pytest.fixture
def ui(request, ember_mode, tmp_path):
    """An Ember server of its own with the UI on a free port: (server, ui port)."""
    from conftest import EmberServer, ember_binary, free_port

    if ember_mode == "spark":
        pytest.skip("Ember's own job UI")
    port = free_port()
    server = EmberServer(ember_binary(request.config), ember_mode, extra_args=["--ui-port", str(port)], workdir=tmp_path)
    yield server, port
    server.stop()


@pytest.fixture
def browser():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)")
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium download a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="ember-ui-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1500,1900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot_dir(ember_mode):
    import pyspark

    path = SCREENSHOTS / f"{time.strftime('%Y%m%d-%H%M%S')}-{ember_mode}-pyspark-{pyspark.__version__}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def wait_for(driver, what, timeout=60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: what(d))


def api(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.loads(r.read())


def slow_multi_stage(spark):
    """A Python UDF that sleeps per row, then an aggregation and a sort: several seconds, and
    several stages in the cluster modes."""
    from pyspark.sql.functions import udf

    def slow(x):
        import time

        time.sleep(SLEEP_PER_ROW)
        return x

    return (
        spark.range(0, 4 * ROWS_PER_PARTITION, 1, 4)
        .select(udf(slow, "long")("id").alias("id"))
        .selectExpr("id % 5 AS k", "id")
        .groupBy("k")
        .count()
        .orderBy("k")
    )


def test_job_ui_in_a_browser(ui, browser, ember_mode):
    from selenium.webdriver.common.by import By

    from conftest import new_session

    server, port = ui
    shots = screenshot_dir(ember_mode)
    print(f"\njob UI screenshots: {shots}")
    spark = new_session(server.url)
    try:
        df = slow_multi_stage(spark)
        graph = job_graph_stages(df)
        if ember_mode != "local":
            assert len(graph) >= 3, graph
        result = {}
        runner = threading.Thread(target=lambda: result.setdefault("rows", df.collect()))
        runner.start()
        browser.get(f"http://127.0.0.1:{port}/")
        row = wait_for(browser, lambda d: (d.find_elements(By.CSS_SELECTOR, "#queries tr.query.running") or [None])[0])
        op = row.get_attribute("data-id")
        row.click()
        # The DAG has the job graph's stages, and tasks are listed, while the query runs.
        stages = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#dag svg g.stage"))
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#tasks tr.task"))
        running_title = browser.find_element(By.CSS_SELECTOR, "#detail-title .badge").text
        browser.save_screenshot(str(shots / "running.png"))
        detail = api(port, f"/api/queries/{op}")
        assert runner.is_alive() and running_title == "running", "the query ended before the page showed it"
        if ember_mode == "local":
            # DataFusion's pipelines: the UDF's scan, the aggregation, the sort's merge.
            assert len(stages) >= 2
        else:
            stages = wait_for(
                browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#dag svg g.stage")) == len(graph) and d
            ).find_elements(By.CSS_SELECTOR, "#dag svg g.stage")
            assert sorted(s["partitions"] for s in detail["stage_list"]) == sorted(p for _, p in graph)
            edges = browser.find_elements(By.CSS_SELECTOR, "#dag svg path.edge")
            assert len(edges) == sum(len(s["inputs"]) for s in detail["stage_list"]) >= len(graph) - 1
        assert len(stages) == len(detail["stage_list"])
        assert browser.find_elements(By.CSS_SELECTOR, "#dag svg g.stage.running")

        runner.join(120)
        assert not runner.is_alive()
        assert [r["count"] for r in result["rows"]] == [32] * 5
        # Finished, with its row count, every stage done.
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'#queries tr.query.succeeded[data-id="{op}"]'))
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#detail-title .badge").text == "succeeded")
        row = browser.find_element(By.CSS_SELECTOR, f'#queries tr.query[data-id="{op}"]')
        assert row.find_elements(By.TAG_NAME, "td")[-1].text == "5"
        wait_for(
            browser,
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#dag svg g.stage.done")) == len(stages),
        )
        tasks = browser.find_elements(By.CSS_SELECTOR, "#tasks tr.task.succeeded")
        assert len(tasks) >= sum(s["partitions"] for s in detail["stage_list"])
        if ember_mode != "local":
            workers = browser.find_elements(By.CSS_SELECTOR, "#workers tr.worker")
            assert len(workers) == 2 and all("alive" in w.text for w in workers)
            # Each task names the worker it ran on.
            assert all("worker " in t.text for t in tasks)
        browser.save_screenshot(str(shots / "finished.png"))
    finally:
        spark.stop()


def test_job_ui_escapes_user_text(ui, browser):
    from selenium.webdriver.common.by import By

    from conftest import new_session

    server, port = ui
    spark = new_session(server.url)
    try:
        sneaky = "<img src=x onerror=\"window.__pwned=1\"><b>bold</b>"
        spark.sql(f"SELECT '{sneaky}' AS x").collect()
        browser.get(f"http://127.0.0.1:{port}/")
        wait_for(browser, lambda d: sneaky in d.find_element(By.ID, "queries").text)
        assert browser.execute_script("return window.__pwned === undefined")
        assert not browser.find_elements(By.CSS_SELECTOR, "#queries img, #queries b, #detail img")
        assert api(port, "/api/queries")["queries"][0]["text"].endswith(f"SELECT '{sneaky}' AS x")
    finally:
        spark.stop()


def test_job_ui_history_and_routes(ui):
    from conftest import new_session

    server, port = ui
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
        page = r.read().decode()
        assert r.headers["Content-Type"].startswith("text/html")
        assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert "<svg" not in page.split("<script>")[0]  # drawn by the page's script
    outside = page.replace("http://www.w3.org/2000/svg", "")  # (a namespace name, not fetched)
    assert "http://" not in outside and "https://" not in outside  # nothing from a CDN
    spark = new_session(server.url)
    try:
        assert spark.range(10).count() == 10
        with pytest.raises(Exception):
            spark.sql("SELECT no_such_column FROM range(1)").collect()
    finally:
        spark.stop()
    queries = api(port, "/api/queries")["queries"]
    assert {"succeeded", "failed"} <= {q["status"] for q in queries}
    failed = next(q for q in queries if q["status"] == "failed")
    assert "no_such_column" in failed["error"]
    with pytest.raises(urllib.error.HTTPError) as e:
        api(port, "/api/queries/no-such-query")
    assert e.value.code == 404
