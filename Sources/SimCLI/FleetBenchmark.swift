enum FleetBenchmark {
  static func command(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    throw UsageError("bench fleet is not built yet")
  }
}
