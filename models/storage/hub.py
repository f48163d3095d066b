"""Checkpoints on disk and on the Hugging Face Hub.

A checkpoint is a directory (or a Hub model repo) holding ``config.json``, ``model.safetensors``,
``source_tokenizer.json``, ``target_tokenizer.json`` and a model card ``README.md`` — or a Hugging Face
translator's own files (:mod:`.loading.hf`). Weights are read with safetensors only: nothing is ever unpickled.

:func:`load_model` resolves a reference, in this order: a bundled checkpoint name (``additive`` or
``en-fr-additive``, under ``assets/checkpoints``), a local directory, a Hub repo id (``owner/name``, with an
optional revision).

Checkpoints may come from strangers (a public app loads any Hub id a visitor types), so before anything is
allocated the config's values are bounded, the parameter count is taken from a model built on the ``meta``
device, and the weight file's declared shapes are compared with it; Hub downloads are sized first and refused
above :attr:`LoadPolicy.max_download_mb`.
"""
from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file
from torch.overrides import TorchFunctionMode

from .. import ASSETS
from ..network.architectures import build_model, check_config
from ..network.family import variant_of
from ..network.hardware import pick_device
from ..network.tokenization import TokenizerPair
from ..network.translator import Fitted, ReversePartner, Translator
from .cards.metadata import CardFacts, read_card
from .languages import Languages, own_languages
from .loaded import BUNDLED, FOLDER, HUB, CheckpointError, LoadedModel, Origin
from .loading.disk import trim_hub_cache
from .loading.download import CHECKPOINT_FILES, Unfetched, download
from .loading.hf import is_hf_config, load_hf
from .loading.limits import machine_dtype, machine_max_download_mb, machine_max_parameters
from .records.alignment_rows import default_reading
from .records.probe_file import bundled_floor, read_probe
from .records.training import trained_variant

BUNDLED_DIR = ASSETS / "checkpoints"
#: The first pair's models are named by what they are ("transformer"); another pair's by their folder
#: ("fr-en-transformer").
BUNDLED_PREFIX = "en-fr-"
DEFAULT_MODEL = "additive"
MAX_PARAMETERS = 50_000_000  # 5× the bundled models; 200 MB of float32


@dataclass(frozen=True)
class LoadPolicy:
    """Which references may be loaded, and in what dtype. The CLIs trust their user and their machine's caps
    (:mod:`.loading.limits`); a public app trusts nobody."""

    local_paths: bool = True  # may a reference name a directory on this machine?
    hub_allow: frozenset[str] | None = None  # Hub ids allowed; None = any
    max_download_mb: float = field(default_factory=machine_max_download_mb)  # refuse larger Hub checkpoints
    max_parameters: int = field(default_factory=machine_max_parameters)  # refuse larger Hugging Face translators
    max_cache_mb: float | None = None  # the Hub cache's total, the repos used longest ago deleted first; None: any
    dtype: str = field(default_factory=machine_dtype)  # a Hugging Face translator's weights: float32 or bfloat16



def bundled_models() -> list[str]:
    """Short names of the checkpoints under ``assets/checkpoints``: the first pair's first, each pair's in order."""
    return list(_bundled_folders())


def _bundled_folders() -> dict[str, Path]:
    """Each bundled checkpoint's folder by its short name (:data:`BUNDLED_PREFIX`)."""
    folders = sorted((not p.name.startswith(BUNDLED_PREFIX), p.name, p) for p in BUNDLED_DIR.iterdir() if p.is_dir())
    return {name.removeprefix(BUNDLED_PREFIX): p for _, name, p in folders}


@functools.cache
def bundled_variants() -> dict[str, str]:
    """What each bundled checkpoint is (its training record's variant), by short name, read without loading it."""
    return {name: trained_variant(folder) for name, folder in _bundled_folders().items()}


@functools.cache
def bundled_cards() -> dict[str, CardFacts]:
    """What each bundled checkpoint's card says (its licence, a head trained to align), by short name."""
    return {name: read_card(folder) for name, folder in _bundled_folders().items()}


@functools.cache
def bundled_pairs() -> dict[str, Languages]:
    """Each bundled checkpoint's languages (source, target), by short name, from its training record."""
    return {name: own_languages(folder) for name, folder in _bundled_folders().items()}


def save_checkpoint(directory: str | Path, model: Translator, tokenizers: TokenizerPair) -> None:
    """Write config, weights and tokenizers (the card is written by :mod:`models.storage.cards.render`).

    Weights are stored in float16, half the download; loading copies them into float32 parameters.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(asdict(model.config), indent=2, sort_keys=True) + "\n")
    weights = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file(weights, directory / "model.safetensors", metadata={"format": "pt"})
    tokenizers.save(directory)


def origin_of(ref: str, policy: LoadPolicy | None = None) -> str:
    """Where ``ref`` is read from: a bundled model's name, else a folder on this machine (where ``policy`` allows
    local paths), else the Hub."""
    ref = ref.strip()
    if ref in _bundled_folders() or ref.removeprefix(BUNDLED_PREFIX) in _bundled_folders():  # ".." is none
        return BUNDLED
    return FOLDER if (policy or LoadPolicy()).local_paths and Path(ref).expanduser().is_dir() else HUB


def stays_loaded(ref: str, policy: LoadPolicy | None = None) -> bool:
    """Whether a server keeps ``ref`` loaded for good: a bundled model or a folder of its own machine (a Hub repo
    is one of many a visitor may ask for, one after another)."""
    return origin_of(ref, policy) != HUB


def resolve(ref: str, revision: str | None = None, policy: LoadPolicy | None = None) -> Path:
    """Local directory holding the checkpoint ``ref`` (downloading from the Hub if needed); ``policy``: one's own
    machine's (:class:`LoadPolicy`'s defaults, read from its settings now) unless given."""
    policy = policy or LoadPolicy()
    ref = ref.strip()
    if not ref:
        raise CheckpointError("No model given.")
    where = origin_of(ref, policy)
    if where == BUNDLED:
        folders = _bundled_folders()
        return folders.get(ref) or folders[ref.removeprefix(BUNDLED_PREFIX)]
    if where == FOLDER:
        return Path(ref).expanduser()
    if ref.count("/") != 1 or ref.startswith((".", "/", "~")):
        where = "not a local directory, " if policy.local_paths else "(this app loads no local paths) "
        raise CheckpointError(
            f"Model {ref!r} not found: it is not a bundled model ({', '.join(bundled_models())}), "
            f"{where}and not a Hub repo id of the form owner/name."
        )
    if policy.hub_allow is not None and ref not in policy.hub_allow:
        raise CheckpointError(f"Hub repo {ref} is not among the models this app may load.")
    try:
        path = download(ref, revision, policy.max_download_mb)
    except Unfetched as e:
        raise CheckpointError(str(e)) from e
    if policy.max_cache_mb is not None:
        trim_hub_cache(policy.max_cache_mb, keep=ref)
    return path


def _raw_config(path: Path) -> dict:
    """``config.json`` of the folder, as a dict."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise CheckpointError(f"Checkpoint {path} is incomplete: missing config.json.") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"Checkpoint {path}: config.json is not valid JSON ({e}).") from e
    if not isinstance(config, dict):
        raise CheckpointError(f"Checkpoint {path}: config.json not a JSON object.")
    return config


def _read_config(path: Path, config: dict):
    """The config dataclass of one of this project's checkpoints, its files all there."""
    missing = [f for f in CHECKPOINT_FILES if not (path / f).is_file()]
    if missing:
        raise CheckpointError(f"Checkpoint {path} is incomplete: missing {', '.join(missing)}.")
    try:
        return check_config(config)
    except ValueError as e:
        raise CheckpointError(f"Checkpoint {path}: config.json {e}.") from e


class _ShapesOnly(TorchFunctionMode):
    """Skip ``torch.nn.init``'s initialisers while a model is built on the meta device, for its shapes alone.

    On meta tensors ``normal_`` runs through torch's Python reference kernels, whose first use imports
    ``torch._dynamo``: 2.7 s of a fresh server's first page (measured, one busy CPU thread), for values never read.
    """

    INITIALISERS = frozenset(f for name, f in vars(torch.nn.init).items()
                             if name.endswith("_") and not name.startswith("_") and callable(f))

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in self.INITIALISERS:
            return args[0] if args else kwargs["tensor"]
        return func(*args, **kwargs)


def _read_weights(path: Path, config) -> Translator:
    """Build the model and fill it from ``model.safetensors``, its declared shapes checked first."""
    with torch.device("meta"), _ShapesOnly():
        shapes = {k: tuple(v.shape) for k, v in build_model(config).state_dict().items()}
    if sum(torch.Size(s).numel() for s in shapes.values()) > MAX_PARAMETERS:
        raise CheckpointError(f"Checkpoint {path}: config.json describes a model over {MAX_PARAMETERS:,} parameters.")
    file = path / "model.safetensors"
    try:
        with safe_open(file, framework="pt") as f:
            stored = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
        if stored != shapes:
            raise CheckpointError(f"Checkpoint {path}: the weights do not match config.json "
                                  f"(differing tensors: {sorted(set(stored.items()) ^ set(shapes.items()))[:3]}).")
        model = build_model(config)
        model.load_state_dict(load_file(file), strict=True)  # float16 on disk, copied into float32
    except (SafetensorError, OSError, ValueError) as e:
        raise CheckpointError(f"Checkpoint {path}: model.safetensors is corrupt or truncated ({e}).") from e
    return model


def _load_own(path: Path, config) -> tuple[Translator, TokenizerPair]:
    """One of this project's checkpoints: tokenizers matched to the config, then the weights."""
    try:
        tokenizers = TokenizerPair.load(path)
    except Exception as e:  # tokenizers raises plain Exception on a bad file
        raise CheckpointError(f"Checkpoint {path}: the tokenizer files cannot be read ({e}).") from e
    if (config.src_vocab_size, config.tgt_vocab_size) != (tokenizers.source.vocab_size, tokenizers.target.vocab_size):
        raise CheckpointError(f"Checkpoint {path}: the tokenizers do not match the model's vocabulary sizes.")
    return _read_weights(path, config), tokenizers


def load_model(ref: str = DEFAULT_MODEL, revision: str | None = None, device: str | None = None,
               policy: LoadPolicy | None = None, languages: Languages | None = None) -> LoadedModel:
    """Load ``ref`` onto ``device`` (auto by default), as ``policy`` allows (one's own machine's unless given), set to
    ``languages`` (source, target: a many-to-many model's own codes; its default pair when None); raises
    :class:`CheckpointError`, which names the model as it was asked for, never the folder it lies in on this
    machine (a server's paths are its own)."""
    policy = policy or LoadPolicy()
    path = resolve(ref, revision, policy)
    try:
        loaded = _read(path, ref, device, policy)
        return loaded if languages is None else loaded.speaking(*languages)
    except (CheckpointError, ValueError) as e:  # ValueError: a pair the model does not speak
        said = str(e).replace(str(path), ref.strip())
        if origin_of(ref, policy) != FOLDER:  # a Hub snapshot's folder is named by its commit, a bundled one by us
            said = said.replace(path.name, ref.strip())
        raise CheckpointError(said) from e


def _read(path: Path, ref: str, device: str | None, policy: LoadPolicy, partner: bool = True) -> LoadedModel:
    """The model in the folder ``path`` (asked for as ``ref``) and what lies beside it: with ``partner``, the model
    translating the other way whose heads its probe reads (never that one's own partner: no loop)."""
    raw = _raw_config(path)
    many = None
    if is_hf_config(raw):  # a Hugging Face translator (opus-mt-*, M2M100, NLLB-200, mBART-50, a chat model)
        try:
            model, tokenizers, found, many = load_hf(path, raw, ref, policy.max_parameters,
                                                     getattr(torch, policy.dtype))
        except ValueError as e:
            raise CheckpointError(str(e)) from e
        own = model.config.model_type  # a Hub model's family is its type
    else:
        config = _read_config(path, raw)
        (model, tokenizers), found = _load_own(path, config), own_languages(path)
        own = variant_of(config.architecture, getattr(config, "score", None))  # only an RNN's config has a score
    target, card = pick_device(device), read_card(path)
    try:
        probe = read_probe(path)  # its heads' reading fit to people, where one was fit
        floor = bundled_floor()  # where the words sit alone: the floor every reading is read beside
        trained = trained_variant(path)
    except (ValueError, KeyError, TypeError) as e:  # a record beside the weights that is not one
        raise CheckpointError(f"{path.name}: {e}") from e
    reverse = _partner(probe.data.partner, device, policy) if partner and probe and probe.reads_partner else None
    return LoadedModel(model.to(target).eval(), tokenizers, path, target,
                       default_reading(path, model.attention_shape, card.supervised_head(model.attention_shape),
                                       card.aligning_matrix),
                       Origin(origin_of(ref, policy), ref.strip(), trained is not None), trained or own, found, card,
                       many, Fitted(probe, floor, reverse))


def _partner(ref: str, device: str | None, policy: LoadPolicy) -> ReversePartner | None:
    """The reverse partner a probe names, or None where it cannot be loaded (the probe's matrix then says why)."""
    try:
        found = _read(resolve(ref, None, policy), ref, device, policy, partner=False)
    except CheckpointError:
        return None
    return ReversePartner(found.model, found.tokenizers, ref)
