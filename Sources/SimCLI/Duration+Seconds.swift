extension Duration {
  /// The duration in seconds, for printing wall-clock figures (never written to result files).
  var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
