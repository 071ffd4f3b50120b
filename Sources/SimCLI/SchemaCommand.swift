import SimScenario

/// `syncsim schema`: prints the JSON Schema of scenario files.
enum SchemaCommand {
  static func run(_ arguments: [String], console: Console) -> ExitCode {
    if arguments.contains("--help") {
      console.print("usage: syncsim schema\n\nPrints the JSON Schema (draft 2020-12) of scenario files.")
      return .success
    }
    guard arguments.isEmpty else {
      console.error("error: schema takes no arguments")
      return .usage
    }
    console.print(ScenarioSchema.text)
    return .success
  }
}
