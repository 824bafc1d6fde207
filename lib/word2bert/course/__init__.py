"""The course's machinery: size profiles, the results contract, the runner, atomic files, input checks.

Imports no deep-learning package (Keras, TensorFlow, JAX, PyTorch) when imported: the runner
and the profiles work without a backend; ``device_name`` and ``report`` ask the backend lazily.
"""
from word2bert.course.checks import not_a_string, token_lists
from word2bert.course.io import atomic_save, atomic_write
from word2bert.course.profiles import PROFILES, gpu_name, pick, profile
from word2bert.course.results import device_name, report, start_timer

__all__ = ["PROFILES", "atomic_save", "atomic_write", "device_name", "gpu_name", "not_a_string", "pick", "profile", "report",
           "start_timer", "token_lists"]
