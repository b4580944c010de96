"""Business logic: each action validates its input and runs in one store transaction."""
