struct FitCommand {
  static let usage = "usage: syncsim fit LOG... --scenario BASE.json [--out DIR]"
  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode { .usage }
}
