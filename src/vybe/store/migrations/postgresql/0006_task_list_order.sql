-- PostgreSQL's 0006_task_list_order: `task list` reads tasks in priority order along an index.

CREATE INDEX tasks_order ON tasks (priority DESC, created_at ASC, id ASC);
