/// What the errors developers meet most in sync logs mean and what to do about them, declared
/// once with the source of each piece of advice. A finding names its entry; an error the
/// catalogue lacks is still a finding, with its domain and code and no advice.
public struct ErrorCatalogue: Sendable {
  /// One error: its domain and code (and, when it matters, text its message carries), what it
  /// means and what to do.
  public struct Entry: Sendable {
    public let domain: String
    public let code: Int
    /// Text the message must hold for this entry (a more specific advice for one case), or "".
    public let when: String
    public let name: String
    public let meaning: String
    public let action: String
    public let source: String
  }

  static let tn3162 = "TN3162 Understanding CloudKit throttles (https://developer.apple.com/documentation/technotes/tn3162-understanding-cloudkit-throttles)"
  static let tn3163 = "TN3163 (https://developer.apple.com/documentation/technotes/tn3163-understanding-the-synchronization-of-nspersistentcloudkitcontainer)"
  static let tn3164 = "TN3164 (https://developer.apple.com/documentation/technotes/tn3164-debugging-the-synchronization-of-nspersistentcloudkitcontainer)"
  static let ckError = "CKError.Code (https://developer.apple.com/documentation/cloudkit/ckerror/code)"

  /// The entries, most specific first (an entry with `when` before its code's general one).
  public static let entries: [Entry] = [
    Entry(
      domain: "NSCocoaErrorDomain", code: 134400, when: "", name: "no iCloud account",
      meaning: "the container could not set up sync: the device is signed out of iCloud (CKAccountStatusNoAccount); the store works locally and nothing syncs",
      action: "sign in to iCloud on the device (in the simulator too); the container sets up again on the account change. Handle the account status in the app rather than waiting for sync",
      source: tn3164),
    Entry(
      domain: "NSCocoaErrorDomain", code: 134417, when: "", name: "request cancelled: one already pending",
      meaning: "an export (or import) was asked for while one of its kind was pending; the pending one carries the changes",
      action: "none when a later export of the same store succeeded (TN3163: ignore the error); otherwise look for why the pending request never ran",
      source: tn3163),
    Entry(
      domain: "NSCocoaErrorDomain", code: 134410, when: "", name: "a second handler for the activity",
      meaning: "two containers (an app and its extension, or two in one process) registered the same store's activities",
      action: "let one process (the app) be in charge of syncing the store",
      source: tn3164),
    Entry(
      domain: "NSCocoaErrorDomain", code: 134405, when: "", name: "the account changed",
      meaning: "the iCloud account changed under the store: the container resets its sync state and starts again",
      action: "none; expect a full import after it",
      source: "OpenCloudData's reading of the mirroring delegate's reset reasons (https://github.com/pookjw/OpenCloudData)"),
    Entry(
      domain: "CKErrorDomain", code: 2, when: "", name: "partial failure",
      meaning: "some records of a request failed; the per-record errors say which and why (in a sysdiagnose they read <private> unless the CloudKit logging profile is installed)",
      action: "read the per-record errors; install the CloudKit profile to see them in a sysdiagnose",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 3, when: "", name: "network unavailable",
      meaning: "the device had no network for the request", action: "none: the request is retried when the network returns",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 4, when: "", name: "network failure",
      meaning: "the network was up but the request failed on it", action: "none: retried with a back-off",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 6, when: "", name: "service unavailable",
      meaning: "CloudKit refused the request for now (HTTP 503); its retry-after says for how long",
      action: "wait for the retry-after; Core Data recovers by itself when the throttle expires. Spread requests (many devices at one moment cause it)",
      source: tn3162),
    Entry(
      domain: "CKErrorDomain", code: 7, when: "", name: "request rate limited",
      meaning: "the server throttles this client: too many requests in a short time; its retry-after says for how long",
      action: "wait for the retry-after (Core Data does); import or save in smaller, spread batches",
      source: tn3162),
    Entry(
      domain: "CKErrorDomain", code: 9, when: "", name: "not authenticated",
      meaning: "no iCloud account signed in, or the account is restricted", action: "sign in to iCloud; check the app is allowed to use iCloud",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 12, when: "production schema", name: "field not in the production schema",
      meaning: "a record carries a field the production environment's schema lacks: the model changed after the schema was deployed",
      action: "deploy the schema from the development environment to production in CloudKit Console (initializeCloudKitSchema in development first)",
      source: tn3164),
    Entry(
      domain: "CKErrorDomain", code: 12, when: "", name: "invalid arguments",
      meaning: "the server refused the request's content (a bad record, a field it cannot take)", action: "read the server message",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 14, when: "", name: "server record changed",
      meaning: "the record changed on the server since it was read: a conflict", action: "none with Core Data (it merges, last writer wins); with CKSyncEngine merge into the server's record and save again",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 15, when: "", name: "server rejected request",
      meaning: "the server refused the request (seen at a new container's first setup, before the server is ready)",
      action: "try again later; relaunching the app has been reported to clear it at a container's first use",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 21, when: "", name: "change token expired",
      meaning: "the saved change token is too old: the client must fetch everything again", action: "none with Core Data (it resets and imports again)",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 23, when: "", name: "zone busy",
      meaning: "the record zone is busy with other requests", action: "none: retried after a few seconds, with back-off",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 25, when: "", name: "quota exceeded",
      meaning: "the iCloud storage is full (private: the user's; shared: the zone owner's; public: the container's)",
      action: "the user frees or buys iCloud storage; sync resumes after",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 26, when: "", name: "zone not found",
      meaning: "the record zone does not exist on the server (deleted, or never created)", action: "none with Core Data (it creates the zone again); check the container's environment",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 27, when: "", name: "limit exceeded",
      meaning: "the request was too large (over 400 items or 2 MB)", action: "none with Core Data (it splits the request); with CKSyncEngine send smaller batches",
      source: "CKError.Code.limitExceeded (https://developer.apple.com/documentation/cloudkit/ckerror/code/limitexceeded)"),
    Entry(
      domain: "CKErrorDomain", code: 36, when: "", name: "account temporarily unavailable",
      meaning: "the iCloud account is temporarily unavailable (signed in, not yet verified)", action: "don't delete cached data and don't queue more CloudKit work until the account is available",
      source: ckError),
    Entry(
      domain: "CKErrorDomain", code: 1, when: "", name: "internal error", meaning: "CloudKit failed inside", action: "file a report with a sysdiagnose",
      source: ckError),
  ]

  /// The entry for an error, the most specific whose `when` the message holds.
  public static func entry(domain: String, code: Int, message: Substring) -> Entry? {
    entries.first { $0.domain == domain && $0.code == code && ($0.when.isEmpty || message.has($0.when)) }
  }

  /// Why sync stopped, from `Told to tear down with reason: …` and messages like it.
  public static let stopReasons: [(text: String, meaning: String, action: String)] = [
    ("Store Removed", "the store was removed from its coordinator (a restore, a migration, a reset): syncing it stopped",
     "load the store again (a container on the new store) before expecting sync"),
    ("Account", "the iCloud account changed: syncing stopped and starts again on the new account",
     "none; expect a full import after it"),
    ("mirroring delegate is gone", "the mirroring delegate was deallocated while an activity came back: the container was released",
     "keep the container alive for the process's life"),
  ]
}
