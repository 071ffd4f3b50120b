import Foundation

/// How a sweep's report names and draws it: the scenario's `sweep.title` and each factor's
/// `label` and `scale`. `datapackage.json` carries them (the package's `title`, each factor
/// field's `title` and `axisScale`), so a report of the folder, or of a merge of its shards,
/// finds them without the scenario.
public struct SweepLabels: Sendable, Equatable {
  /// One factor: its column (the JSON path), its label and its axis scale, when given.
  public struct Factor: Sendable, Equatable {
    public var path: String
    public var label: String?
    public var scale: String?

    public init(path: String, label: String? = nil, scale: String? = nil) {
      self.path = path
      self.label = label
      self.scale = scale
    }
  }

  public var title: String?
  public var factors: [Factor]

  public init(title: String? = nil, factors: [Factor]) {
    self.title = title
    self.factors = factors
  }

  /// The columns' names only, with no labels (a sweep made on the command line).
  public init(paths: [String]) {
    self.init(factors: paths.map { Factor(path: $0) })
  }

  public var paths: [String] { factors.map(\.path) }

  /// The labels a `datapackage.json` carries for `paths` (a shard's, read back by `merge`; a
  /// folder's, read by `report`): the package's title and the factor fields' `title` and
  /// `axisScale` in `sweep.csv`. None where the file or a field is missing or not JSON.
  public static func read(dataPackage data: Data?, paths: [String]) -> SweepLabels {
    var labels = SweepLabels(paths: paths)
    guard let data, let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return labels }
    labels.title = root["title"] as? String
    let resources = root["resources"] as? [[String: Any]] ?? []
    guard let sweep = resources.first(where: { $0["name"] as? String == "sweep" }),
      let fields = (sweep["schema"] as? [String: Any])?["fields"] as? [[String: Any]]
    else { return labels }
    for field in fields {
      guard let name = field["name"] as? String, let index = paths.firstIndex(of: name) else { continue }
      labels.factors[index].label = field["title"] as? String
      labels.factors[index].scale = field["axisScale"] as? String
    }
    return labels
  }

  /// The factor whose column is `path`, if the sweep has it.
  public func factor(_ path: String) -> Factor? { factors.first { $0.path == path } }
}
