"""bench/hub_model.py on a small model: the opus-mt-shaped folder loads through the app's loader with its padded
vocabulary, and the probe reports every figure it prints."""
from bench.hub_model import OPUS_MT_EN_FR, build, measure


def test_an_opus_mt_shaped_folder_loads_and_is_measured(tmp_path):
    small = {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
             "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32}
    folder = build(tmp_path / "m", small)
    found = measure(folder)
    from transformers import MarianMTModel, MarianTokenizer

    assert len(MarianTokenizer.from_pretrained(folder)) == OPUS_MT_EN_FR["vocab_size"]  # padded to opus-mt's
    assert found["parameters"] == sum(p.numel() for p in MarianMTModel.from_pretrained(folder).parameters())
    assert set(found) == {"load_s", "rss_after_load_mib", "parameters", "first_heatmap_s", "greedy_s",
                          "greedy_pieces", "beam5_s", "source_pieces", "rss_with_default_mib"}
    assert found["source_pieces"] > 20 and found["rss_with_default_mib"] > found["rss_after_load_mib"]


def test_an_nllb_shaped_folder_loads_set_to_a_pair_and_is_measured_in_bfloat16(tmp_path):
    from transformers import AutoTokenizer

    from bench.nllb_model import PAIR, build

    small = {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
             "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "vocab_size": 2000}
    folder = build(tmp_path / "n", small, pieces=1700)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert type(tokenizer).__name__ == "NllbTokenizer" and 1700 < tokenizer.convert_tokens_to_ids(PAIR[1]) < 2000
    found = measure(folder, PAIR, "bfloat16")
    assert 20 < found["source_pieces"] < 40  # 20 words, its language tag and EOS: pieces as NLLB cuts them
    assert found["rss_with_default_mib"] > found["rss_after_load_mib"]


def test_a_t5_shaped_folder_loads_with_its_padded_vocabulary_and_its_prefix_and_is_measured(tmp_path):
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    from bench.t5_model import T5_SMALL, build

    small = {"d_model": 16, "d_kv": 8, "d_ff": 32, "num_layers": 1, "num_decoder_layers": 1, "num_heads": 2}
    folder = build(tmp_path / "t", small)
    assert len(AutoTokenizer.from_pretrained(folder)) == T5_SMALL["vocab_size"]  # padded to t5-small's
    found = measure(folder)
    library = T5ForConditionalGeneration.from_pretrained(folder)
    assert found["parameters"] == sum(p.numel() for p in library.parameters())
    assert found["source_pieces"] > 20 + 5  # 20 words and the task prefix before them
    assert found["rss_with_default_mib"] > found["rss_after_load_mib"]
