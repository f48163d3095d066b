"""The decoder-only translator this project trains (``--arch decoder-only``): transformers' own ``LlamaForCausalLM``
built from a ``LlamaConfig``, a byte-level BPE tokenizer trained here on both languages with a chat template of its
own, and a checkpoint in the Hugging Face format, so it is read exactly as a Hub chat model is
(:mod:`models.storage.loading.prompted`): prompt, the sentence's span in it, the rest of the prompt, the end of turn.

Its first special tokens take the project's ids (``<pad>`` 0, ``<unk>`` 1, the start 2, the end of turn 3), so the
training pairs are laid out by the code an encoder–decoder's are: the prompt (the frame around the sentence,
:attr:`~models.network.hf.prompt.PromptTokenizer.frame`) is the source, the start token — the generation prompt's
last, ``<|assistant|>`` — the translation's first input, the end of turn its last output, and the loss falls on
the translation's tokens only::

    <|user|>Translate the following English text into French.

    The cat sleeps.<|end|><|assistant|>Le chat dort.<|end|>
    └──────────── source (the prompt) ──────────┘ └─ written ──┘
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..network.hf.decoder_only import DecoderOnlyTranslator
from ..network.hf.prompt import INSTRUCTION, Prompt, PromptTokenizer, ReplyTokenizer
from ..network.tokenization import BOS_ID, EOS_ID, PAD_ID, UNK_ID, TokenizerPair
from ..storage.languages import language_name
from ..storage.loading.prompted import chat_specials, prompted_translator

ARCH = "decoder-only"
#: ``<pad>``, ``<unk>``, the start and the end of turn at the project's PAD, UNK, BOS and EOS ids; then the roles.
SPECIALS = ("<pad>", "<unk>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>")
CHAT_TEMPLATE = ("{% for message in messages %}{{ '<|' + message['role'] + '|>' + message['content'] + '<|end|>' }}"
                 "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}")
POSITIONS = 512  # the prompt's and the translation's together (rotary: no weights)
DEFAULT_LAYERS = 6


def add_arguments(parser) -> None:
    g = parser.add_argument_group("the decoder-only model's sizes (also --d-model, --heads, --ffn-dim)")
    g.add_argument("--layers", type=int, default=DEFAULT_LAYERS, help="its one stack's layers")
    g.add_argument("--kv-heads", type=int, default=2,
                   help="key–value heads, shared by the query heads in groups (grouped-query attention)")


def train_chat_tokenizer(lines: list[str], vocab_size: int):
    """A byte-level BPE (as Llama 3's and Qwen2's) over ``lines`` with :data:`SPECIALS` first and the chat template,
    as a ``PreTrainedTokenizerFast``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIALS), min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(lines, trainer=trainer)
    return checked(PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=SPECIALS[0], unk_token=SPECIALS[1],
                                           bos_token=SPECIALS[2], eos_token=SPECIALS[3], chat_template=CHAT_TEMPLATE))


def checked(tokenizer):
    """``tokenizer``, whose specials are at the ids the training pairs' layout gives them; ValueError otherwise."""
    for token, i in zip(SPECIALS, (PAD_ID, UNK_ID, BOS_ID, EOS_ID)):
        if tokenizer.convert_tokens_to_ids(token) != i:
            raise ValueError(f"a decoder-only tokenizer must map {token} to id {i}")
    return tokenizer


def load_chat_tokenizer(directory: str | Path):
    from transformers import AutoTokenizer

    return checked(AutoTokenizer.from_pretrained(directory, trust_remote_code=False))


def chat_tokenizers(tokenizer, source: str, target: str) -> TokenizerPair:
    """Its tokenizer's two sides, asking for ``source`` → ``target`` with the default instruction, before a model
    exists (:func:`as_translator` checks them against one)."""
    prompt = Prompt(INSTRUCTION, language_name(source, source), language_name(target, target))
    return TokenizerPair(PromptTokenizer(tokenizer, prompt, BOS_ID, POSITIONS // 2), ReplyTokenizer(tokenizer, EOS_ID))


def build_chat_model(args, tokenizer):
    """A new ``LlamaForCausalLM`` of the command line's sizes, its embedding tied to its output layer."""
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=args.d_model, intermediate_size=args.ffn_dim,
                         num_hidden_layers=args.layers, num_attention_heads=args.heads,
                         num_key_value_heads=args.kv_heads, max_position_embeddings=POSITIONS,
                         attention_dropout=0.0 if args.dropout is None else args.dropout, tie_word_embeddings=True,
                         pad_token_id=PAD_ID, bos_token_id=None, eos_token_id=EOS_ID)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=EOS_ID, pad_token_id=PAD_ID, do_sample=False)
    return model


def as_translator(model, tokenizer, out: str | Path) -> tuple[DecoderOnlyTranslator, TokenizerPair]:
    """The causal LM and its tokenizer as the app reads them, English→French; its prompt's start and end must be the
    ids the training pairs give them."""
    specials = chat_specials(tokenizer, model)
    if (specials.start, specials.eos) != (BOS_ID, EOS_ID):
        raise ValueError("the chat template's prompt must end on the start token and its turns on the end token")
    translator, tokenizers, _, _ = prompted_translator(model, tokenizer, specials, str(out), Path(out).name)
    return translator, tokenizers


def save_chat_checkpoint(directory: str | Path, model: DecoderOnlyTranslator, tokenizers: TokenizerPair) -> None:
    """The model in its family's own format (config, float16 safetensors, generation config) and its tokenizer
    (``tokenizer.json``, the chat template in ``tokenizer_config.json``)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    hf, weights, seen = model.hf, {}, set()
    for name, tensor in hf.state_dict().items():
        if tensor.data_ptr() not in seen:  # a tied weight (the output layer is the embedding) is saved once
            seen.add(tensor.data_ptr())
            weights[name] = tensor.detach().to(torch.float16)
    hf.save_pretrained(directory, state_dict=weights)
    tokenizers.target.tokenizer.save_pretrained(directory)
