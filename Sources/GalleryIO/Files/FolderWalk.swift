import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The regular files under a folder, found with `readdir` alone where the file system gives each
/// entry's type (no `stat`, no extended attributes, no URL per file: a folder of 10,000 photos is
/// listed in a few milliseconds). Names starting with `.` are skipped, files and folders alike;
/// symbolic links are not followed.
package enum FolderWalk {
    /// The paths of the regular files under `folder`, sorted; a subfolder that cannot be read is
    /// left out.
    package static func regularFiles(under folder: String) -> [String] {
        var files: [String] = []
        var pending = [folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder]
        while let directory = pending.popLast() {
            guard let stream = opendir(directory) else { continue }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                guard !name.hasPrefix(".") else { continue }
                let path = directory == "/" ? "/" + name : directory + "/" + name
                switch kind(of: entry.pointee.d_type, path: path) {
                case .file: files.append(path)
                case .folder: pending.append(path)
                case .other: break
                }
            }
        }
        return files.sorted()
    }

    private enum Kind {
        case file, folder, other
    }

    /// The entry's kind from its `d_type`, or from `lstat` where the file system does not say.
    private static func kind(of type: UInt8, path: String) -> Kind {
        switch Int32(type) {
        case Int32(DT_REG): return .file
        case Int32(DT_DIR): return .folder
        case Int32(DT_UNKNOWN):
            var info = stat()
            guard lstat(path, &info) == 0 else { return .other }
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .file
            case S_IFDIR: return .folder
            default: return .other
            }
        default: return .other
        }
    }
}
