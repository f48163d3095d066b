"""How a network learns: one teacher-forced step (and its replicas across processes), the budget's learning-rate
schedule and weight average, and guided alignment's loss."""
