import SimExperiments
import SimMetrics
import SimModel
import SimScenario

/// `syncsim schema`: the JSON Schema of scenarios, the record types a model becomes, and the
/// add-only check between two models.
enum SchemaCommand {
  static let usage = """
    usage: syncsim schema                         print the JSON Schema (draft 2020-12) of scenario files
           syncsim schema policies                the scheduler policies, their options and defaults (Markdown)
           syncsim schema actions                 the timeline's actions: how each is written, what it does
                                                  (Markdown; docs/scenario-format.md)
           syncsim schema parameters              every single-valued key: range, default, meaning, source
                                                  (Markdown; docs/parameters.md)
           syncsim schema metrics                 every metric of summary.csv: unit, better direction,
                                                  meaning (Markdown; docs/metrics.md)
           syncsim schema paths                   the transitions of an export and an import after dasd
                                                  starts them (Markdown; docs/paths.md)
           syncsim schema records SCENARIO.json   the CloudKit record types and fields the model becomes
           syncsim schema diff OLD.json NEW.json  check a model change against the production rule:
                                                  add-only, no delete, no rename, no type change
    """

  static func run(_ arguments: [String], console: Console) -> ExitCode {
    if arguments.contains("--help") {
      console.print(usage)
      return .success
    }
    switch arguments.first {
    case nil:
      console.print(ScenarioSchema.text)
      return .success
    case "policies":
      guard arguments.count == 1 else { return usageError("schema policies takes no arguments", console) }
      console.print(ScenarioSchema.policyTable())
      return .success
    case "actions":
      guard arguments.count == 1 else { return usageError("schema actions takes no arguments", console) }
      console.print(ScenarioSchema.actionTable)
      return .success
    case "parameters":
      guard arguments.count == 1 else { return usageError("schema parameters takes no arguments", console) }
      console.print(ParameterDocument.text)
      return .success
    case "metrics":
      guard arguments.count == 1 else { return usageError("schema metrics takes no arguments", console) }
      console.print(RunSummary.document)
      return .success
    case "paths":
      guard arguments.count == 1 else { return usageError("schema paths takes no arguments", console) }
      console.print(ActivityPaths.document)
      return .success
    case "records":
      guard arguments.count == 2 else { return usageError("schema records takes one scenario file", console) }
      guard let scenario = load(arguments[1], console) else { return .dataError }
      console.print(RecordMapping.describe(scenario.dataModel))
      return .success
    case "diff":
      guard arguments.count == 3 else { return usageError("schema diff takes two scenario files", console) }
      guard let old = load(arguments[1], console), let new = load(arguments[2], console) else { return .dataError }
      let changes = SchemaDiff.compare(old: old.dataModel, new: new.dataModel)
      for change in changes { console.print((change.allowed ? "ok     " : "error  ") + change.message) }
      let forbidden = changes.filter { !$0.allowed }.count
      console.print(
        changes.isEmpty ? "no schema changes" : "\(changes.count - forbidden) allowed, \(forbidden) forbidden")
      return forbidden == 0 ? .success : .dataError
    default:
      return usageError(
        "unknown schema subcommand '\(arguments[0])' (policies, actions, parameters, metrics, paths, records or diff)", console)
    }
  }

  static func load(_ file: String, _ console: Console) -> Scenario? {
    let loaded = ScenarioFile.load(file)
    for problem in loaded.problems where problem.severity == .error { console.error(problem.description) }
    return loaded.scenario
  }

  static func usageError(_ message: String, _ console: Console) -> ExitCode {
    console.error("error: \(message)")
    console.error(usage)
    return .usage
  }
}
