"""Small helpers the library shares: atomic file writes (``io``), argument checks (``checks``), the one cache
folder (``paths``). Import them from their modules."""
