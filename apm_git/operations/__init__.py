"""Steps the verbs are made of: a flush, a consolidation run, a sync landing, the load guards."""
