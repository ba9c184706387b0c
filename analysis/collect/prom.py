"""Minimal Prometheus HTTP API client (instant queries only: raw samples come from range-vector
selectors, which return every scraped sample with its own timestamp, never a lookback-filled one)."""
import requests

from ..common.errors import AnalysisError


class Prometheus:
    def __init__(self, url, timeout=30):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def query(self, expr, at):
        endpoint = f"{self.url}/api/v1/query"
        try:
            resp = requests.get(endpoint, params={"query": expr, "time": f"{at:.3f}"},
                                timeout=self.timeout)
        except requests.RequestException as e:
            raise AnalysisError(f"--prometheus {self.url}: cannot reach Prometheus ({e})")
        try:
            body = resp.json()
        except ValueError:
            raise AnalysisError(f"--prometheus {self.url}: HTTP {resp.status_code}, not a Prometheus API answer")
        if body.get("status") != "success":
            raise AnalysisError(f"--prometheus {self.url}: query {expr!r} failed: "
                                f"{body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def raw_samples(self, selector, start, end):
        """Every sample of every series matching selector with timestamp in (start, end]."""
        width_ms = max(1, int(round((end - start) * 1000)))
        data = self.query(f"{selector}[{width_ms}ms]", end)
        if data.get("resultType") != "matrix":
            raise AnalysisError(f"Prometheus {self.url}: expected a matrix for {selector}, got {data.get('resultType')}")
        return [(s["metric"], [(float(t), float(v)) for t, v in s["values"]]) for s in data["result"]]
