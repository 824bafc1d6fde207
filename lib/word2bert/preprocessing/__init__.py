"""Batching for ``fit`` and ``predict``: rows of similar length batched together (``LengthBatches``, with the
helpers ``row_extents`` and ``bucket_widths``), and the translation models' teacher-forcing arrays."""
from word2bert.preprocessing.batching import (LengthBatches, bucket_widths, length_batches_by_epoch, pad_rows,
                                              row_extents, teacher_forcing_arrays)

__all__ = ["LengthBatches", "bucket_widths", "length_batches_by_epoch", "pad_rows", "row_extents",
           "teacher_forcing_arrays"]
