"""assay.corpora: documents that local systems index and judgments are checked against."""

from assay.corpora.ids import read_corpus_ids
from assay.corpora.load import detect_format, load_corpus
from assay.corpora.models import Corpus

__all__ = ["Corpus", "detect_format", "load_corpus", "read_corpus_ids"]
