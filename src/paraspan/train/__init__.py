"""Fine-tuning generators on the corpus itself (LoRA on a local base model), and the adapters they write.

Nothing heavy is imported here: torch, transformers and peft load inside the functions that train.
"""
