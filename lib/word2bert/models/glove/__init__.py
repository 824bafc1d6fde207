"""GloVe (Pennington, Socher & Manning 2014) and the count-based LSA baseline it is compared with.
"""
from word2bert.models.glove.cooccurrence import cooccurrence_matrix, cooccurrence_triples
from word2bert.models.glove.lsa import lsa_vectors, ppmi
from word2bert.models.glove.model import GloVe, GloVeLoss, glove_loss, glove_weight

__all__ = ["GloVe", "GloVeLoss", "cooccurrence_matrix", "cooccurrence_triples", "glove_loss", "glove_weight",
           "lsa_vectors", "ppmi"]
