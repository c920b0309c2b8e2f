def on_files(files, config): return files
