// A guard whose author wrote PicoClaw's wire names instead of the hook object's function names:
// it would deny every exec, but has none of the functions hookgate calls.
export default {
  before_tool(params) {
    return params.tool === 'exec' ? { action: 'deny_tool', reason: 'no exec' } : { action: 'continue' };
  },
};
