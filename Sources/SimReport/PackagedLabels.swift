import Foundation

/// A sweep's own names for itself, as its `datapackage.json` carries them: the package's
/// `title` (the scenario's `sweep.title`) and each factor field's `title` and `axisScale` (its
/// `label` and `scale`). A folder without them, or without the file, has none.
struct PackagedLabels {
  var title: String?
  /// Factor labels by column name (lookup only: never iterated).
  var labels: [String: String] = [:]
  /// Factor axis scales by column name (lookup only: never iterated).
  var scales: [String: String] = [:]

  init(directory: String) {
    guard let data = FileManager.default.contents(atPath: directory + "/datapackage.json"),
      let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return }
    title = root["title"] as? String
    let resources = root["resources"] as? [[String: Any]] ?? []
    guard let sweep = resources.first(where: { $0["name"] as? String == "sweep" }),
      let fields = (sweep["schema"] as? [String: Any])?["fields"] as? [[String: Any]]
    else { return }
    for field in fields {
      guard let name = field["name"] as? String else { continue }
      if let title = field["title"] as? String { labels[name] = title }
      if let scale = field["axisScale"] as? String { scales[name] = scale }
    }
  }
}
