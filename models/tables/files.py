"""A corpus table as a file: CSV (a statistic a sentence lacks is an empty cell) or JSON beside the corpus figures
(null there)."""
from __future__ import annotations

import csv
import io
import json
import math


def _blank(value, empty):
    return empty if isinstance(value, float) and math.isnan(value) else value


def table_csv(rows: list[dict]) -> str:
    """The rows as CSV; a statistic a sentence lacks is an empty cell."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows({k: _blank(v, "") for k, v in row.items()} for row in rows)
    return out.getvalue()


def table_json(rows: list[dict], figures: dict) -> str:
    """``{"summary": figures, "rows": rows}``; a statistic a sentence lacks is null."""
    clean = [{k: _blank(v, None) for k, v in row.items()} for row in rows]
    return json.dumps({"summary": figures, "rows": clean}, indent=1, ensure_ascii=False)
