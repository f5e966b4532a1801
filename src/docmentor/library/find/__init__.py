"""find_api retrieval: the API index, verb synonyms, structural priors, sync/async twins, import paths."""
