import Foundation

/// `gallery -C DIR open [--print-only]`: prints the sign-in link of the web page of the node
/// serving DIR (`web` in DIR/node.json, the token of DIR/http-token) and opens it with `xdg-open`
/// (or `open` on macOS) when one is on the PATH, unless `--print-only`, `CI=true` or
/// `GALLERY_NO_BROWSER=1` says not to (tests, scripts, CI).
struct OpenCommand {
    /// The command's word.
    static let name = "open"

    let directory: URL
    let launches: Bool

    init(parsing arguments: inout ArgumentList, directory: URL) throws(CommandFailure) {
        self.directory = directory
        let printOnly = arguments.flag("--print-only")
        try arguments.expectEnd()
        let environment = ProcessInfo.processInfo.environment
        launches = !printOnly && environment["CI"] != "true" && environment["GALLERY_NO_BROWSER"] != "1"
    }

    /// Prints the link, then opens it when asked and possible.
    func run() throws(CommandFailure) {
        let info = directory.appendingPathComponent("node.json")
        guard let data = FileManager.default.contents(atPath: info.path),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CommandFailure(code: .unavailable, message: "no node is serving \(directory.path)", usage: nil)
        }
        guard let origin = object["web"] as? String else {
            throw CommandFailure(code: .unavailable, message: "the node serving \(directory.path) has no web page: start it with --http",
                                 usage: nil)
        }
        let tokenFile = directory.appendingPathComponent("http-token")
        guard let tokenData = FileManager.default.contents(atPath: tokenFile.path),
              let token = String(data: tokenData, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else {
            throw .failed("cannot read \(tokenFile.path)")
        }
        let link = "\(origin)/?token=\(token)"
        print(link)
        guard launches, let opener = Self.opener() else { return }
        let process = Process()
        process.executableURL = opener
        process.arguments = [link]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }

    /// `xdg-open` or `open` from the PATH, if any.
    private static func opener() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["xdg-open", "open"] {
            for directory in path.split(separator: ":") {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }
}
