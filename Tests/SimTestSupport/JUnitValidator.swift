import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Checks a JUnit XML report against the structure of Jenkins' schema
/// (`Tests/Fixtures/junit-jenkins.xsd`) with the toolchain alone: which element may hold which,
/// the required attributes, and `time` as seconds. `xmllint` checks the same file against the
/// schema itself where it is installed; the suite passes without it.
public enum JUnitValidator {
  static let children: [String: Set<String>] = [
    "testsuites": ["testsuite"],
    "testsuite": ["testsuite", "properties", "testcase", "system-out", "system-err"],
    "properties": ["property"],
    "property": [],
    "testcase": ["skipped", "error", "failure", "system-out", "system-err"],
    "skipped": [], "error": [], "failure": [], "system-out": [], "system-err": [],
  ]
  static let required: [String: [String]] = [
    "testsuite": ["name", "tests", "failures", "errors"], "testcase": ["name"], "property": ["name", "value"],
  ]

  /// Every way `xml` departs from the schema's structure (empty: it conforms).
  public static func problems(_ xml: String) -> [String] {
    let delegate = Delegate()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = delegate
    if !parser.parse() { delegate.problems.append("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
    if let root = delegate.root, root != "testsuites" && root != "testsuite" {
      delegate.problems.append("the root is <\(root)>, not <testsuites> or <testsuite>")
    }
    return delegate.problems
  }

  final class Delegate: NSObject, XMLParserDelegate {
    var stack: [String] = []
    var root: String?
    var problems: [String] = []

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      if let parent = stack.last {
        if !(JUnitValidator.children[parent]?.contains(name) ?? false) {
          problems.append("<\(name)> inside <\(parent)>")
        }
      } else {
        root = name
      }
      if JUnitValidator.children[name] == nil { problems.append("unknown element <\(name)>") }
      for attribute in JUnitValidator.required[name] ?? [] where attributes[attribute] == nil {
        problems.append("<\(name)> lacks \(attribute)=")
      }
      if (name == "testsuite" || name == "testsuites"), let time = attributes["time"] {
        if Double(time).map({ $0 < 0 || !$0.isFinite }) ?? true {
          problems.append("<\(name)> time=\"\(time)\" is not seconds")
        }
      }
      stack.append(name)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      stack.removeLast()
    }
  }
}
