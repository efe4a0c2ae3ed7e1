#!/usr/bin/env python3
"""Reference outputs for the local embedders in internal/embed/{bert,static}.

Builds tiny random models with fixed seeds, in the directory layouts the real
models ship in (sentence-transformers BERT, model2vec, sentence-transformers
StaticEmbedding), stored as F32, F16 and BF16 safetensors, and computes what
each model gives for a set of token id sequences. The BERT forward pass is
written here in torch from the BertModel definition (embeddings, post-norm
encoder layers, padded batches with an additive attention mask); the static
poolings in numpy from the model2vec and sentence-transformers definitions.
References are computed in float64 from the weights as stored (after rounding
to F16 or BF16), and checked against a float32 padded batch.

Run by hand, never in CI. It needs only Debian's numpy and torch:

    apt-get install -y python3-numpy python3-torch
    /usr/bin/python3 internal/embed/testdata/refgen/gen.py

It rewrites internal/embed/testdata/{bert,static}/ and prints their sizes.
"""

import json
import math
import os
import shutil
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4


# ---------------------------------------------------------------- files

def encode_tensor(values, dtype):
    """Return (bytes, values as read back in float64) for a float array."""
    a = np.asarray(values, dtype=np.float32)
    if dtype == "F32":
        return a.astype("<f4").tobytes(), a.astype(np.float64)
    if dtype == "F16":
        h = a.astype("<f2")
        return h.tobytes(), h.astype(np.float64)
    if dtype == "BF16":
        t = torch.from_numpy(a.copy()).to(torch.bfloat16)
        raw = t.view(torch.int16).numpy().astype("<i2").tobytes()
        return raw, t.to(torch.float64).numpy()
    raise ValueError(dtype)


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype, shape, raw bytes), laid out in order."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    js = json.dumps(header, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        for _, _, _, raw in tensors:
            f.write(raw)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def vocabulary(size, rng):
    """Special tokens then invented word pieces of varied lengths."""
    toks = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = "abcdefghijklmnopqrstuvwxyz"
    while len(toks) < size:
        n = int(rng.integers(1, 9))
        t = "".join(letters[int(i)] for i in rng.integers(0, 26, n))
        if rng.random() < 0.3:
            t = "##" + t
        if t not in toks:
            toks.append(t)
    return toks


def write_tokenizer(path, toks):
    added = [{"id": i, "content": toks[i], "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i in range(5)]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(toks)}},
    }
    write_json(path, tok)


def as_list(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


# ---------------------------------------------------------------- BERT

def bert_weights(cfg, rng):
    """Random float32 weights, BertModel names without prefix. Scales are
    larger than training's init so that attention is far from uniform."""
    h, inter = cfg["hidden_size"], cfg["intermediate_size"]

    def mat(o, i, s):
        return (rng.standard_normal((o, i)) * s).astype(np.float32)

    def vec(n, s, c=0.0):
        return (c + rng.standard_normal(n) * s).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": mat(cfg["vocab_size"], h, 1.0),
        "embeddings.position_embeddings.weight": mat(cfg["max_position_embeddings"], h, 0.5),
        "embeddings.token_type_embeddings.weight": mat(cfg["type_vocab_size"], h, 0.5),
        "embeddings.LayerNorm.weight": vec(h, 0.2, 1.0),
        "embeddings.LayerNorm.bias": vec(h, 0.1),
    }
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        for n in ("query", "key", "value"):
            w[p + f"attention.self.{n}.weight"] = mat(h, h, 1.5 / math.sqrt(h))
            w[p + f"attention.self.{n}.bias"] = vec(h, 0.1)
        w[p + "attention.output.dense.weight"] = mat(h, h, 1.0 / math.sqrt(h))
        w[p + "attention.output.dense.bias"] = vec(h, 0.1)
        w[p + "attention.output.LayerNorm.weight"] = vec(h, 0.2, 1.0)
        w[p + "attention.output.LayerNorm.bias"] = vec(h, 0.1)
        w[p + "intermediate.dense.weight"] = mat(inter, h, 1.5 / math.sqrt(h))
        w[p + "intermediate.dense.bias"] = vec(inter, 0.1)
        w[p + "output.dense.weight"] = mat(h, inter, 1.0 / math.sqrt(inter))
        w[p + "output.dense.bias"] = vec(h, 0.1)
        w[p + "output.LayerNorm.weight"] = vec(h, 0.2, 1.0)
        w[p + "output.LayerNorm.bias"] = vec(h, 0.1)
    w["pooler.dense.weight"] = mat(h, h, 0.1)  # shipped by many models, unused
    w["pooler.dense.bias"] = vec(h, 0.1)
    return w


def gelu(x, act):
    if act == "gelu":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    if act in ("gelu_new", "gelu_pytorch_tanh"):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    raise ValueError(act)


def bert_forward(w, cfg, ids, mask, dtype):
    """BertModel's last hidden state for a padded batch ids (B×L) with
    attention mask (B×L of 0/1), token types all 0."""
    t = {k: torch.from_numpy(np.asarray(v)).to(dtype) for k, v in w.items()}
    h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = h // heads
    eps = cfg["layer_norm_eps"]
    B, L = ids.shape
    ids = torch.from_numpy(ids).long()
    m = torch.from_numpy(mask).to(dtype)
    pos = torch.arange(L)
    x = (t["embeddings.word_embeddings.weight"][ids]
         + t["embeddings.token_type_embeddings.weight"][torch.zeros_like(ids)]
         + t["embeddings.position_embeddings.weight"][pos][None, :, :])
    x = torch.nn.functional.layer_norm(x, (h,), t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    ext = (1.0 - m[:, None, None, :]) * torch.finfo(dtype).min

    def lin(v, name):
        return v @ t[name + ".weight"].T + t[name + ".bias"]

    def split(v):
        return v.view(B, L, heads, dh).transpose(1, 2)

    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        q = split(lin(x, p + "attention.self.query"))
        k = split(lin(x, p + "attention.self.key"))
        v = split(lin(x, p + "attention.self.value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh) + ext
        probs = torch.softmax(scores, dim=-1)
        ctx = (probs @ v).transpose(1, 2).reshape(B, L, h)
        a = torch.nn.functional.layer_norm(lin(ctx, p + "attention.output.dense") + x, (h,),
                                           t[p + "attention.output.LayerNorm.weight"],
                                           t[p + "attention.output.LayerNorm.bias"], eps)
        i = gelu(lin(a, p + "intermediate.dense"), cfg["hidden_act"])
        x = torch.nn.functional.layer_norm(lin(i, p + "output.dense") + a, (h,),
                                           t[p + "output.LayerNorm.weight"],
                                           t[p + "output.LayerNorm.bias"], eps)
    return x, m


def st_pool(x, m, pooling, normalize):
    """sentence-transformers Pooling (mean over the mask, or CLS), then
    Normalize (torch.nn.functional.normalize)."""
    if pooling == "mean":
        s = (x * m[:, :, None]).sum(1)
        out = s / torch.clamp(m.sum(1)[:, None], min=1e-9)
    else:
        out = x[:, 0]
    if normalize:
        out = torch.nn.functional.normalize(out, p=2, dim=1)
    return out


def bert_embed(w, cfg, seqs, pooling, normalize, dtype=torch.float64):
    """Padded batch: pad id 0, mask 0 past each sequence's end."""
    L = max(len(s) for s in seqs)
    ids = np.zeros((len(seqs), L), dtype=np.int64)
    mask = np.zeros((len(seqs), L), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
        mask[i, :len(s)] = 1
    x, m = bert_forward(w, cfg, ids, mask, dtype)
    return st_pool(x, m, pooling, normalize).to(torch.float64).numpy()


def bert_sequences(cfg, max_seq, rng):
    seqs = []
    for n in (1, 2, 3, 7, 16, max_seq):
        mid = [int(v) for v in rng.integers(MASK + 1, cfg["vocab_size"], max(n - 2, 0))]
        seqs.append(([CLS] + mid + [SEP])[:n])
    seqs.append([CLS, PAD, UNK, MASK, SEP])  # special ids are ordinary rows
    return seqs


def make_bert(name, seed, *, dtype, pooling, normalize, prefix, act="gelu", hidden=32, heads=4,
              layers=2, inter=64, vocab=100, max_pos=40, max_seq=32, eps=1e-12, module_dir=""):
    rng = np.random.default_rng(seed)
    cfg = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter,
        "hidden_act": act,
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "layer_norm_eps": eps,
        "max_position_embeddings": max_pos,
        "type_vocab_size": 2,
        "initializer_range": 0.02,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype],
    }
    w32 = bert_weights(cfg, rng)
    d = os.path.join(OUT, "bert", name)
    tdir = os.path.join(d, module_dir)
    os.makedirs(tdir, exist_ok=True)
    stored, tensors = {}, []
    for k in sorted(w32):
        raw, back = encode_tensor(w32[k], dtype)
        stored[k] = back
        tensors.append((prefix + k, dtype, w32[k].shape, raw))
    pos_ids = np.arange(max_pos, dtype="<i8")  # a buffer some exports carry
    tensors.append((prefix + "embeddings.position_ids", "I64", (1, max_pos), pos_ids.tobytes()))
    write_safetensors(os.path.join(tdir, "model.safetensors"), tensors, {"format": "pt"})
    write_json(os.path.join(tdir, "config.json"), cfg)
    write_json(os.path.join(tdir, "sentence_bert_config.json"), {"max_seq_length": max_seq, "do_lower_case": False})
    modules = [
        {"idx": 0, "name": "0", "path": module_dir, "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    write_json(os.path.join(d, "modules.json"), modules)
    write_json(os.path.join(d, "1_Pooling", "config.json"), {
        "word_embedding_dimension": hidden,
        "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean",
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": False,
        "include_prompt": True,
    })

    seqs = bert_sequences(cfg, max_seq, rng)
    singles = [bert_embed(stored, cfg, [s], pooling, normalize)[0] for s in seqs]
    batch = bert_embed(stored, cfg, seqs, pooling, normalize)
    batch32 = bert_embed(stored, cfg, seqs, pooling, normalize, torch.float32)
    for i in range(len(seqs)):
        assert np.max(np.abs(singles[i] - batch[i])) < 1e-9, (name, i)
    err32 = float(np.max(np.abs(batch32 - batch)))
    assert err32 < 1e-5, (name, err32)
    write_json(os.path.join(d, "reference.json"), {
        "dim": hidden,
        "pooling": pooling,
        "normalize": normalize,
        "max_seq_len": max_seq,
        "float32_torch_max_error": err32,
        "single": [{"ids": s, "want": as_list(v)} for s, v in zip(seqs, singles)],
        "batch": {"ids": seqs, "want": [as_list(v) for v in batch]},
    })


# ---------------------------------------------------------------- static

def static_sequences(vocab, rng):
    def rand(n):
        return [int(v) for v in rng.integers(0, vocab, n)]

    seqs = [
        [],
        [UNK],
        [UNK, UNK, UNK],
        [int(rng.integers(MASK + 1, vocab))],
        rand(9),
        [7, UNK, 9, 7, UNK, 11],
        rand(40),
        rand(600),  # past model2vec's 512 tokens
    ]
    for s in seqs[4:]:
        s[len(s) // 2] = UNK  # an unknown token in the middle
    return seqs


def model2vec_pool(E, ids, *, unk, max_length, weights, mapping, normalize):
    """StaticModel.encode: drop unk ids, keep max_length, scale each row by
    its token's weight, mean, normalise by norm + 1e-32."""
    ids = [i for i in ids if i != unk][:max_length]
    if not ids:
        out = np.zeros(E.shape[1])
    else:
        rows = mapping[ids] if mapping is not None else ids
        emb = E[rows]
        if weights is not None:
            emb = emb * weights[ids][:, None]
        out = emb.mean(axis=0)
    if normalize:
        out = out / (np.linalg.norm(out) + 1e-32)
    return out


def embedding_bag_pool(E, ids, normalize):
    """StaticEmbedding: nn.EmbeddingBag in mean mode (empty bag: zeros),
    then Normalize if the module list has one."""
    out = E[ids].mean(axis=0) if ids else np.zeros(E.shape[1])
    if normalize:
        out = out / max(np.linalg.norm(out), 1e-12)
    return out


def make_model2vec(name, seed, *, dtype, normalize, quantized, vocab=120, dim=24, rows=40):
    rng = np.random.default_rng(seed)
    toks = vocabulary(vocab, rng)
    d = os.path.join(OUT, "static", name)
    os.makedirs(d, exist_ok=True)
    n_rows = rows if quantized else vocab
    E32 = rng.standard_normal((n_rows, dim)).astype(np.float32)
    raw, E = encode_tensor(E32, dtype)
    tensors = [("embeddings", dtype, E32.shape, raw)]
    weights = mapping = None
    if quantized:
        w32 = rng.uniform(0.1, 2.0, vocab).astype(np.float32)
        wraw, weights = encode_tensor(w32, "F32")
        mapping = rng.integers(0, n_rows, vocab).astype(np.int64)
        tensors.append(("mapping", "I64", mapping.shape, mapping.astype("<i8").tobytes()))
        tensors.append(("weights", "F32", w32.shape, wraw))
    write_safetensors(os.path.join(d, "model.safetensors"), tensors)
    cfg = {"model_type": "model2vec", "architectures": ["StaticModel"], "tokenizer_name": "tiny",
           "apply_pca": dim, "apply_zipf": True, "hidden_dim": dim, "seq_length": 1000000,
           "normalize": normalize, "embedding_dtype": {"F32": "float32", "F16": "float16"}[dtype]}
    if quantized:
        cfg["vocabulary_quantization"] = n_rows
    write_json(os.path.join(d, "config.json"), cfg)
    write_tokenizer(os.path.join(d, "tokenizer.json"), toks)
    median = int(np.median([len(t) for t in toks]))
    seqs = static_sequences(vocab, rng)
    want = [model2vec_pool(E, s, unk=UNK, max_length=512, weights=weights, mapping=mapping,
                           normalize=normalize) for s in seqs]
    write_json(os.path.join(d, "reference.json"), {
        "format": "model2vec", "dim": dim, "normalize": normalize, "unk_id": UNK,
        "max_tokens": 512, "max_chars": 512 * median,
        "single": [{"ids": s, "want": as_list(v)} for s, v in zip(seqs, want)],
    })


def make_static_embedding(name, seed, *, dtype, normalize, vocab=110, dim=20):
    rng = np.random.default_rng(seed)
    toks = vocabulary(vocab, rng)
    d = os.path.join(OUT, "static", name)
    sub = os.path.join(d, "0_StaticEmbedding")
    os.makedirs(sub, exist_ok=True)
    E32 = rng.standard_normal((vocab, dim)).astype(np.float32)
    raw, E = encode_tensor(E32, dtype)
    write_safetensors(os.path.join(sub, "model.safetensors"), [("embedding.weight", dtype, E32.shape, raw)])
    write_tokenizer(os.path.join(sub, "tokenizer.json"), toks)
    modules = [{"idx": 0, "name": "0", "path": "0_StaticEmbedding",
                "type": "sentence_transformers.models.StaticEmbedding"}]
    if normalize:
        modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": "sentence_transformers.models.Normalize"})
    write_json(os.path.join(d, "modules.json"), modules)
    write_json(os.path.join(d, "config_sentence_transformers.json"), {"similarity_fn_name": "cosine"})
    seqs = static_sequences(vocab, rng)
    want = [embedding_bag_pool(E, s, normalize) for s in seqs]
    write_json(os.path.join(d, "reference.json"), {
        "format": "sentence-transformers", "dim": dim, "normalize": normalize, "unk_id": -1,
        "max_tokens": 0, "max_chars": 0,
        "single": [{"ids": s, "want": as_list(v)} for s, v in zip(seqs, want)],
    })


def main():
    for kind in ("bert", "static"):
        shutil.rmtree(os.path.join(OUT, kind), ignore_errors=True)
    # One set of weights (seed 1) in each dtype: mean pooling, Normalize.
    for dt in ("F32", "F16", "BF16"):
        make_bert("mean_norm_" + dt.lower(), 1, dtype=dt, pooling="mean", normalize=True, prefix="")
    # CLS pooling without Normalize, "bert." names, tanh GELU, other widths,
    # the transformer in a subfolder.
    make_bert("cls_raw_f32", 2, dtype="F32", pooling="cls", normalize=False, prefix="bert.",
              act="gelu_new", hidden=48, heads=6, layers=3, inter=80, vocab=90, max_pos=24, max_seq=20,
              eps=1e-5, module_dir="0_Transformer")
    # Mean pooling without Normalize.
    make_bert("mean_raw_f16", 3, dtype="F16", pooling="mean", normalize=False, prefix="bert.")

    make_model2vec("m2v_f32", 10, dtype="F32", normalize=True, quantized=False)
    make_model2vec("m2v_quant_f16", 11, dtype="F16", normalize=False, quantized=True)
    make_static_embedding("st_norm_f32", 12, dtype="F32", normalize=True)
    make_static_embedding("st_raw_f16", 13, dtype="F16", normalize=False)

    total = 0
    for kind in ("bert", "static"):
        for root, _, files in os.walk(os.path.join(OUT, kind)):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    print(f"wrote {OUT}/bert and {OUT}/static: {total} bytes")


if __name__ == "__main__":
    main()
