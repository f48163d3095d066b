"""bench/rehearsal.py: the deploy file as uv sees it, with an unreachable index swapped for local wheels."""
from bench import rehearsal


def test_reachable_index_keeps_the_deploy_file(monkeypatch, tmp_path):
    monkeypatch.setattr(rehearsal, "reachable", lambda url: True)
    path, extra = rehearsal.requirements_for_here(tmp_path)
    assert path == rehearsal.ROOT / "requirements.txt" and extra == []


def test_unreachable_index_gives_way_to_local_wheel_folders(monkeypatch, tmp_path, capsys):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setattr(rehearsal, "reachable", lambda url: False)
    monkeypatch.setenv("PIP_FIND_LINKS", f"{wheels} /no/such/folder")
    path, extra = rehearsal.requirements_for_here(tmp_path)
    text = path.read_text()
    assert "--extra-index-url" not in text and f"-r {rehearsal.ROOT}/requirements-app.txt" in text
    assert extra == ["--find-links", str(wheels)]
    assert "cannot be reached from here" in capsys.readouterr().out
