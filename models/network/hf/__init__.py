"""Hugging Face translators behind the one interface: encoder–decoders (Marian, T5, M2M100, NLLB, mBART) and
decoder-only chat models, their tokenizers, languages, prompts, and where each family keeps its attentions."""
