"""Training that survives an interruption (``resumable_fit``, ``EpochCheckpoint``, ``RunRecords``) and the callbacks
the models share."""
