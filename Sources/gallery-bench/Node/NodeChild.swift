import Foundation
import GalleryHost

/// `gallery-bench node --serve DIR`: a node on DIR in this process, for the parent to measure;
/// prints `listening on HOST:PORT` once it serves, and stops when its standard input closes.
enum NodeChild {
    /// Serves `directory` until standard input reaches its end.
    static func serve(_ directory: URL) throws {
        let server = try GalleryServer(directory: directory, name: "bench", log: .silent)
        let endpoint = try server.start()
        writeLine("listening on \(endpoint?.description ?? "nothing")", to: .standardOutput)
        _ = FileHandle.standardInput.readDataToEndOfFile()
        server.stop()
    }
}
