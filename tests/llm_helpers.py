"""Tiny randomly initialised decoder-only translators built offline, one per family, each laid out as the real ones
are: a tokenizer trained here (byte-level BPE as Qwen2.5's and Llama 3's, SentencePiece-style pieces as Gemma's)
with its family's chat template and end-of-turn token, grouped-query attention (4 query heads over 2 key–value
heads), and a few hundred steps of training on prompt → translation so that it answers and stops."""
from pathlib import Path

from models.network.hf.prompt import INSTRUCTION, Prompt

from .hf_helpers import ENGLISH, FRENCH, fitted

CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
LLAMA3 = ("{{ '<|begin_of_text|>' }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + "
          "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")
GEMMA = ("{{ bos_token }}{% for message in messages %}{{ '<start_of_turn>' + ('model' if message['role'] == "
         "'assistant' else message['role']) + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}"
         "{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}")
#: Each family: its chat template, special tokens (pad, end of turn, then the rest) and whether pieces are
#: byte-level.
FAMILIES = {
    "qwen2": (CHATML, ("<|endoftext|>", "<|im_end|>", "<|im_start|>"), True),
    "llama": (LLAMA3, ("<|end_of_text|>", "<|eot_id|>", "<|begin_of_text|>", "<|start_header_id|>",
                       "<|end_header_id|>"), True),
    "gemma2": (GEMMA, ("<pad>", "<end_of_turn>", "<bos>", "<eos>", "<start_of_turn>", "<unk>"), False),
}
ENGLISH_FRENCH = Prompt(INSTRUCTION, "English", "French")


def chat_tokenizer(family: str, lines: list[str], template: str | None = None):
    """A tokenizer of ``family``'s kind trained on ``lines``, with its chat template (or ``template``)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    default, specials, byte_level = FAMILIES[family]
    template = template or default
    if byte_level:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        alphabet = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split("\n", "isolated"),
                                                     pre_tokenizers.Metaspace(prepend_scheme="first")])
        tok.decoder = decoders.Metaspace(prepend_scheme="first")
        alphabet = []
    tok.train_from_iterator(lines * 5, trainers.BpeTrainer(vocab_size=400, special_tokens=list(specials),
                                                         initial_alphabet=alphabet, show_progress=False))
    extra = {} if byte_level else {"bos_token": "<bos>", "unk_token": "<unk>"}
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token=specials[0], eos_token=specials[1],
                                   chat_template=template, **extra)


def _config(family: str, tokenizer, positions: int):
    from transformers import Gemma2Config, LlamaConfig, Qwen2Config

    sizes = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=positions,
                 pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, tie_word_embeddings=True)
    if family == "gemma2":
        return Gemma2Config(head_dim=8, query_pre_attn_scalar=8, sliding_window=16, **sizes,
                            bos_token_id=tokenizer.bos_token_id)
    return (Qwen2Config if family == "qwen2" else LlamaConfig)(**sizes)


def tiny_llm(folder: Path, family: str, steps: int = 300, seed: int = 0, positions: int = 256) -> Path:
    """Save a tiny ``family`` model (qwen2, llama, gemma2) and its tokenizer under ``folder``, trained ``steps`` Adam
    steps to answer :data:`ENGLISH_FRENCH`'s prompt of each English sentence with its French one and the end of
    turn; its generation config stops at the end of turn or at the pad (as Qwen2.5's lists two); returns the
    folder."""
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig

    folder.mkdir(parents=True, exist_ok=True)
    template, specials, _ = FAMILIES[family]
    plain = chat_tokenizer(family, ENGLISH + FRENCH)  # a first cut, to render the prompts the final one learns from
    prompts = [ENGLISH_FRENCH.render(plain, e)[0] for e in ENGLISH]
    tokenizer = chat_tokenizer(family, ENGLISH + FRENCH + prompts)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(_config(family, tokenizer, positions))
    rows = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
    answers = [tokenizer(f, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for f in FRENCH]
    width = max(len(p) + len(a) for p, a in zip(rows, answers))
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    labels, mask = torch.full_like(ids, -100), torch.zeros_like(ids)
    for b, (p, a) in enumerate(zip(rows, answers)):
        ids[b, : len(p) + len(a)] = torch.tensor(p + a)
        labels[b, len(p) : len(p) + len(a)] = torch.tensor(a)
        mask[b, : len(p) + len(a)] = 1
    model = fitted(model, steps, input_ids=ids, attention_mask=mask, labels=labels)
    model.generation_config = GenerationConfig(eos_token_id=[tokenizer.eos_token_id, tokenizer.pad_token_id],
                                               pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
