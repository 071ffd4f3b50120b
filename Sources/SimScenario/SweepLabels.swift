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

  /// A plan's labels, factor by factor.
  public init(plan: SweepPlan) {
    self.init(
      title: plan.title, factors: plan.factors.map { Factor(path: $0.path, label: $0.label, scale: $0.scale?.rawValue) })
  }

  /// The columns' names only, with no labels (a sweep made on the command line).
  public init(paths: [String]) {
    self.init(factors: paths.map { Factor(path: $0) })
  }

  public var paths: [String] { factors.map(\.path) }

  /// The labels a `datapackage.json` carries for `paths` (a shard's, read back by `merge`):
  /// the package's title and the factor fields' `title` and `axisScale` in `sweep.csv`.
  public static func read(dataPackage bytes: [UInt8], paths: [String]) -> SweepLabels {
    var labels = SweepLabels(paths: paths)
    guard let root = try? JSONParser.parse(bytes) else { return labels }
    labels.title = root.member("title").flatMap(Self.text)
    guard case .array(let resources)? = root.member("resources")?.value,
      let sweep = resources.first(where: { $0.member("name").flatMap(Self.text) == "sweep" }),
      case .array(let fields)? = sweep.member("schema")?.member("fields")?.value
    else { return labels }
    for field in fields {
      guard let name = field.member("name").flatMap(Self.text), let index = paths.firstIndex(of: name) else { continue }
      labels.factors[index].label = field.member("title").flatMap(Self.text)
      labels.factors[index].scale = field.member("axisScale").flatMap(Self.text)
    }
    return labels
  }

  static func text(_ node: JSONNode) -> String? {
    if case .string(let text) = node.value { return text }
    return nil
  }
}
