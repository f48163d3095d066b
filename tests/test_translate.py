"""models/translate.py: the stdin → stdout CLI keeps order and blank lines."""
import io
import json

import pytest

from models import translate
from models.storage.hub import save_checkpoint


@pytest.fixture
def checkpoint(tmp_path, tiny_model, tiny_tokenizers):
    save_checkpoint(tmp_path, tiny_model, tiny_tokenizers)
    return str(tmp_path)


def run(monkeypatch, capsys, argv, stdin):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = translate.main(argv)
    return code, capsys.readouterr()


@pytest.mark.parametrize("beam", ["1", "3"])
def test_one_line_out_per_line_in(monkeypatch, capsys, checkpoint, beam):
    code, out = run(monkeypatch, capsys, ["--model", checkpoint, "--beam", beam], "a dog\n\nthe cat sleeps\n  \n")
    lines = out.out.split("\n")[:-1]
    assert code == 0 and len(lines) == 4
    assert lines[1] == "" and lines[3] == "" and lines[0] and lines[2]


def test_json_traces(monkeypatch, capsys, checkpoint):
    _, out = run(monkeypatch, capsys, ["--model", checkpoint, "--json"], "a dog\n\n")
    first, blank = (json.loads(line) for line in out.out.splitlines())
    assert blank is None
    (heads,) = first["cross_attention"]  # [L=1, heads=1, T, S] for an RNN
    assert len(heads) == 1 and len(heads[0]) == len(first["target_pieces"])
    assert len(heads[0][0]) == len(first["source_pieces"])


def test_missing_model_is_a_clear_error(monkeypatch, capsys):
    code, out = run(monkeypatch, capsys, ["--model", "nope"], "a dog\n")
    assert code == 2 and "not found" in out.err


def test_bertviz_writes_a_transformers_three_attentions(monkeypatch, capsys, tmp_path, tiny_tokenizers):
    pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-extras.txt)")
    from .helpers import make_transformer

    save_checkpoint(tmp_path / "t", make_transformer(tiny_tokenizers), tiny_tokenizers)
    out = tmp_path / "view.html"
    code, _ = run(monkeypatch, capsys, ["--model", str(tmp_path / "t"), "--bertviz", str(out)], "\na big dog\n")
    assert code == 0 and '"name": "Encoder"' in out.read_text() and '"name": "Cross"' in out.read_text()


def test_bertviz_of_an_rnn_says_why_not(monkeypatch, capsys, checkpoint, tmp_path):
    code, out = run(monkeypatch, capsys, ["--model", checkpoint, "--bertviz", str(tmp_path / "x.html")], "a dog\n")
    assert code == 2 and "only its cross-attention" in out.err and not (tmp_path / "x.html").exists()
