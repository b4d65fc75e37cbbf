/**
 * Where everything lives in DATA_DIR, the face the server, the pipeline and
 * the command lines import it by.
 */
export { DATA_DIR_NAMES, dataDirLayout, type DataDirLayout } from "./layout.js";
