import Foundation
import SimExperiments
import SimMetrics
import SimScenario

/// Reading scenario files and writing result files.
enum ScenarioFile {
  /// Reads and decodes a scenario; problems come back with the file's name.
  static func load(_ path: String) -> (scenario: Scenario?, bytes: [UInt8], problems: [ScenarioProblem]) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      return (
        nil, [], [ScenarioProblem(file: path, path: "", message: exists ? "cannot read the file" : "no such file")]
      )
    }
    let bytes = [UInt8](data)
    do {
      let (scenario, warnings) = try ScenarioDecoder.decode(bytes, file: path)
      return (scenario, bytes, warnings)
    } catch {
      return (nil, bytes, error.problems)
    }
  }

  /// Whether `path` holds a JSON Schema (its top-level `$schema` names a json-schema.org draft and
  /// it has `$defs` or `properties`) rather than a scenario.
  static func isJSONSchema(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path), data.count <= ScenarioDecoder.Limits.maxFileBytes,
      let root = try? JSONParser.parse([UInt8](data)), case .object(let members) = root.value,
      let schema = members.first(where: { $0.key == "$schema" })?.value, case .string(let uri) = schema.value
    else { return false }
    return uri.contains("json-schema.org") && members.contains { $0.key == "$defs" || $0.key == "properties" }
  }

  /// Writes every file into `directory` atomically: each goes to a temporary file first and is
  /// renamed into place, so an interrupted run leaves no half-written file.
  static func write(_ files: [(name: String, text: String)], to directory: String) throws {
    let manager = FileManager.default
    try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let pid = ProcessInfo.processInfo.processIdentifier
    var temporaries: [(String, String)] = []
    defer { for (temporary, _) in temporaries { try? manager.removeItem(atPath: temporary) } }
    for file in files {
      let final = (directory as NSString).appendingPathComponent(file.name)
      let temporary = (directory as NSString).appendingPathComponent(".\(file.name).tmp-\(pid)")
      try Data(file.text.utf8).write(to: URL(fileURLWithPath: temporary))
      temporaries.append((temporary, final))
    }
    for (temporary, final) in temporaries {
      if rename(temporary, final) != 0 { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: final]) }
    }
    temporaries.removeAll()
  }
}
