"""How a checkpoint is found and opened: on disk, downloaded from the Hub, a Hugging Face folder read with
transformers (a chat model behind its prompt), each within the memory and size a server allows."""
