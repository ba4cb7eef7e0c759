"""Prediction collection: the turn-by-turn evaluation protocol, live model adapters with a
response cache, and offline baselines. Every model's predictions are written as release-format
EM output files, so scoring does not care where they came from.

- ``conversation``: what a model may see of a conversation, turn by turn (causal views).
- ``prompts``: the versioned prompt set (``prompts/v<N>.yaml``) rendered into requests.
- ``answers``: parsing and validating each task's answer; repair messages.
- ``cache``: the SQLite response cache keyed by the full request.
- ``adapters``: OpenAI-compatible and Anthropic HTTP clients with retries and rate limits.
- ``collect``: one shard of conversations through a model, into EM output files.
- ``baselines``: chance, prior and lexicon predictors that run offline.
"""
