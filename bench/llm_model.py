"""Decoder-only translators of Qwen2.5-0.5B-Instruct's and EuroLLM-1.7B-Instruct's size, measured without their
weights: none can be fetched here.

    python -m bench hub-model --size qwen2.5-0.5b
    python -m bench hub-model --size eurollm-1.7b
    python -m bench widening --size qwen2.5-0.5b --repeats 2   # one pass in bfloat16 beside float32 products

Builds once, under ``.bench/<name>-sized/``, a randomly initialised model in bfloat16 of each one's published shape
(Qwen2.5-0.5B-Instruct's config.json: 24 layers of width 896, 14 query heads over 2 key–value heads, feed-forward
4,864, 151,936 tokens, tied embeddings, 494 M parameters; EuroLLM-1.7B's card: 24 layers of width 2,048, 16 query
heads over 8, feed-forward 5,632, 128,000 tokens, untied, 1.66 B parameters), with a byte-level tokenizer trained
on the bench's sentences and their prompts under each one's chat template (Qwen2.5's default system turn; EuroLLM's
empty one). Then, as ``bench hub-model`` does for opus-mt (:mod:`.hub_model`'s probe, a fresh process each,
``ATLAS_DTYPE=bfloat16``): the load, the first heatmap (the whole prompt among the columns, 25 pieces forced),
greedy and beam 5, and the memory with the bundled default beside it.
"""
from __future__ import annotations

import os
from pathlib import Path

from models import ROOT

from .hub_model import SENTENCE, measure, report

QWEN_TEMPLATE = ("{% if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are Qwen, created by Alibaba "
                 "Cloud. You are a helpful assistant.<|im_end|>\\n' }}{% endif %}{% for message in messages %}"
                 "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}"
                 "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
EUROLLM_TEMPLATE = ("{{ '<|im_start|>system\\n<|im_end|>\\n' }}{% for message in messages %}{{ '<|im_start|>' + "
                    "message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}"
                    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
SHAPES = {
    "qwen2.5-0.5b": ("qwen2", QWEN_TEMPLATE, dict(
        hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
        max_position_embeddings=32768, vocab_size=151936, rope_theta=1000000.0, rms_norm_eps=1e-6,
        tie_word_embeddings=True)),
    "eurollm-1.7b": ("llama", EUROLLM_TEMPLATE, dict(
        hidden_size=2048, intermediate_size=5632, num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=8,
        max_position_embeddings=4096, vocab_size=128000, rope_theta=10000.0, rms_norm_eps=1e-5,
        tie_word_embeddings=False)),
}


def build(size: str) -> Path:
    """The ``size``-shaped model in bfloat16 and its tokenizer under ``.bench/<size>-sized/`` (once)."""
    folder = ROOT / ".bench" / f"{size}-sized"
    if (folder / "model.safetensors").exists():
        return folder
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig, LlamaConfig, Qwen2Config

    from models.network.hf.prompt import Prompt
    from models.storage.examples import load_examples
    from models.storage.loading.prompted import instruction_for
    from tests.llm_helpers import chat_tokenizer

    family, template, shape = SHAPES[size]
    english = [e.text for e in load_examples()] + [SENTENCE] * 20
    plain = chat_tokenizer("qwen2", english, template)  # its prompts, for the tokenizer to learn their words too
    prompts = [Prompt(instruction_for(size), "English", "French").render(plain, e)[0] for e in english]
    tokenizer = chat_tokenizer("qwen2", english + prompts, template)
    ends = dict(pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"))
    config = (Qwen2Config if family == "qwen2" else LlamaConfig)(**shape, **ends)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).eval()
    model.generation_config = GenerationConfig(**ends)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def bench_llm_model(size: str) -> None:
    folder = build(size)
    os.environ.setdefault("ATLAS_MAX_PARAMETERS", "2000000000")  # this machine's cap in bfloat16 admits neither
    report(f"{size}-sized {SHAPES[size][0]}", folder, measure(folder, dtype="bfloat16"))


#: The slices :mod:`models.network.hardware` may widen at once, in weight elements, compared by ``bench widening``.
SLICES = (16 << 20, 1 << 20, 1 << 19, 1 << 18, 1 << 16)


def bench_widening(size: str, repeats: int) -> None:
    """One pass of the ``size``-shaped model over the bench sentence's prompt and 25 pieces forced (every attention
    returned, the output layer at the 25), in bfloat16 products and in float32 ones at each of :data:`SLICES`,
    ``repeats`` rounds in turn; the seconds of each."""
    import time
    from contextlib import nullcontext

    import torch
    from transformers import AutoModelForCausalLM

    from models.network import hardware
    from models.storage.loading.limits import read_in

    model = AutoModelForCausalLM.from_pretrained(build(size), dtype=torch.bfloat16, attn_implementation="eager").eval()
    read_in(model)
    if hardware.native_bfloat16(torch.device("cpu")):
        print("this CPU multiplies bfloat16 itself (AVX512-BF16 or AMX): nothing is widened here")
    ids = torch.randint(1000, 2000, (1, len(SENTENCE.split()) * 3 + 25))  # about the prompt's tokens, and the 25
    found = {}
    for _ in range(repeats):
        for elements in (None, *SLICES):
            hardware.WIDENED_ELEMENTS = elements or hardware.WIDENED_ELEMENTS
            widened = hardware.float32_arithmetic(model.lm_head.weight) if elements else nullcontext()
            started = time.perf_counter()
            with torch.inference_mode(), widened:
                states = model.model(input_ids=ids, output_attentions=True).last_hidden_state
                model.lm_head(states[:, -25:])
            found.setdefault(elements, []).append(time.perf_counter() - started)
    print(f"{size}-sized, one pass over {ids.shape[1]} tokens, seconds per round:")
    for elements, seconds in found.items():
        label = "bfloat16 products" if elements is None else f"float32 products, slices of {elements:,} elements"
        print(f"  {label}: {' / '.join(f'{s:.2f}' for s in seconds)}")
