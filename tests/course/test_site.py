"""The built website (``python -m word2bert site``) in headless Chromium, served on 127.0.0.1 by the test.

Every page of ``_build/site/`` loads without a console error and without asking for anything outside 127.0.0.1
(every request the browser makes is read from its network log); every internal link, anchor and asset resolves;
every image has a size; every table fits the page's width; every equation is typeset by the site's own MathJax
and no raw ``$$`` or ``\\(`` is left in a page's text; the search page finds "negative sampling" and "[MASK]".
One screenshot per chapter (and of the index) goes to ``_build/screens/`` for a person to look at.

Skipped, with the reason, when the site is not built, or Chromium, ChromeDriver or selenium are missing: README
command (b) builds the site and installs selenium; Chromium comes from ``apt-get install chromium chromium-driver``.
Backend-independent: the JAX pass deselects it.
"""
from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "site"
SCREENS = ROOT / "_build" / "screens"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.once_on_tensorflow


def _missing() -> str | None:
    if not (SITE / "index.html").is_file():
        return f"no built site at {SITE}: run python -m word2bert site first"
    if not CHROMIUM or not CHROMEDRIVER:
        return "chromium or chromedriver is not installed (Debian: apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -r requirements.txt)"
    return None


def _pages() -> list[Path]:
    return sorted(p for p in SITE.rglob("*.html") if "_static" not in p.parts)


class _Refs(HTMLParser):
    """Collects a page's ids and the URLs it links or loads."""

    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "a" and key == "src"):
                self.refs.append(attrs[key])


@functools.lru_cache(maxsize=None)
def _parsed(path: Path) -> _Refs:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _broken_refs(page: Path) -> list[str]:
    """The internal links of ``page`` whose file or anchor does not exist."""
    broken = []
    for ref in _parsed(page).refs:
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or ref.startswith(("mailto:", "javascript:", "data:")):
            continue  # an outside link is never loaded (checked in the browser); data: URLs carry themselves
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or SITE.resolve() not in target.parents:
            broken.append(f"{ref} (no file)")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parsed(target).ids:
            broken.append(f"{ref} (no anchor)")
    return broken


@pytest.fixture(scope="module")
def site_url():
    """The site served by a ``http.server`` thread on 127.0.0.1 (a free port), shut down after the module."""
    reason = _missing()
    if reason:
        pytest.skip(reason)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(site_url):
    """Headless Chromium through the system's ChromeDriver; nothing is downloaded (SE_OFFLINE), no other host can
    be resolved, and the browser's console and network logs are kept for the checks."""
    import os

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-extensions", "--window-size=1280,900",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


_TYPESET = """
const done = arguments[arguments.length - 1];
const report = () => {
  const maths = [...document.querySelectorAll('.math')];
  const bare = maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 60));
  const copy = (document.querySelector('.bd-article') || document.body).cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, .math, mjx-container').forEach(e => e.remove());
  done({maths: maths.length, bare: bare, text: copy.textContent});
};
if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
  MathJax.startup.promise.then(report, (err) => done({error: String(err)}));
} else {
  report();  // a page without MathJax: its text is still checked for raw math
}
"""
_IMAGES = "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
_WIDE_TABLES = ("return [...document.querySelectorAll('.bd-article table')]"
                ".filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1)"
                ".map(t => t.textContent.trim().slice(0, 60))")


def _requests(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _load(driver, url: str) -> dict:
    """Open ``url``; return its console errors, the requests that left 127.0.0.1, unloaded images and math."""
    driver.get_log("browser"), driver.get_log("performance")  # start each page with empty logs
    driver.get(url)
    math = driver.execute_async_script(_TYPESET)
    images = driver.execute_script(_IMAGES)
    wide = driver.execute_script(_WIDE_TABLES)
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    outside = [u for u in _requests(driver) if urlsplit(u).scheme not in ("data", "blob", "about")
               and urlsplit(u).hostname != "127.0.0.1"]
    return {"errors": errors, "outside": outside, "images": images, "wide tables": wide, "math": math}


def test_every_internal_link_and_anchor_resolves():
    """Read from the files themselves (no browser needed): each href and src inside the site exists."""
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site at {SITE}: run python -m word2bert site first")
    pages = _pages()
    assert len(pages) > 100, f"only {len(pages)} pages: is the API reference missing?"
    broken = {str(p.relative_to(SITE)): b for p in pages if (b := _broken_refs(p))}
    assert not broken, json.dumps(broken, indent=1)[:4000]


def test_every_page_loads_offline_with_its_images_and_equations(browser, site_url):
    problems = {}
    for page in _pages():
        rel = page.relative_to(SITE).as_posix()
        found = _load(browser, site_url + rel)
        bad = {key: found[key] for key in ("errors", "outside", "images", "wide tables") if found[key]}
        math = found["math"]
        if "error" in math:
            bad["mathjax"] = math["error"]
        else:
            if math["bare"]:
                bad["untypeset"] = math["bare"]
            raw = [s for s in ("$$", "\\(", "\\[") if s in math["text"]]
            if raw:
                bad["raw math"] = raw
        if rel.startswith("chapters/"):
            SCREENS.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(SCREENS / (page.stem + ".png")))
            if math.get("maths", 0) == 0:
                bad["math"] = "a chapter page without a typeset equation"
        elif rel == "index.html":
            SCREENS.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(SCREENS / "index.png"))
        if bad:
            problems[rel] = bad
    assert not problems, json.dumps(problems, indent=1)[:4000]
    assert len(list(SCREENS.glob("[0-9][0-9]_*.png"))) == len(list((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")))


@pytest.mark.parametrize("query, chapter", [("negative sampling", "03_word2vec_efficient"),
                                            ("[MASK]", "09_bert_pretraining")])
def test_search_finds_the_concepts(browser, site_url, query, chapter):
    from urllib.parse import quote_plus

    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{site_url}search.html?q={quote_plus(query)}")
    links = WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "const s = document.querySelector('#search-results .search-summary, #search-results p');"
        "const done = s && /found|did not match/i.test(s.textContent);"
        "return done ? [...document.querySelectorAll('#search-results li a')].map(a => a.href) : false;"))
    assert any(f"chapters/{chapter}.html" in link for link in links), (query, links[:20])
