"""rankwatch exporters: the Prometheus collector and the alert sinks."""
